import { describe, expect, it } from "vitest";
import { parseAiModels } from "./parse.ts";

function errorsOf(json: string): string[] {
  const r = parseAiModels(json);
  return "errors" in r ? r.errors : [];
}

describe("parseAiModels accepts", () => {
  it("a managed warm text-to-image model with a wei price", () => {
    const r = parseAiModels(
      JSON.stringify([
        {
          pipeline: "text-to-image",
          model_id: "stabilityai/sd-turbo",
          warm: true,
          capacity: 1,
          price_per_unit: 4768371,
          pixels_per_unit: 1,
          optimization_flags: { SFAST: true, DEEPCACHE: false },
        },
      ]),
    );
    expect(r).toEqual({
      models: [
        {
          pipeline: "text-to-image",
          model_id: "stabilityai/sd-turbo",
          warm: true,
          capacity: 1,
          price_per_unit: 4768371,
          pixels_per_unit: 1,
          optimization_flags: { SFAST: true, DEEPCACHE: false },
        },
      ],
    });
  });

  it("an external runner priced in USD for one gateway", () => {
    expect(
      errorsOf(
        JSON.stringify([
          {
            pipeline: "llm",
            model_id: "meta-llama/Meta-Llama-3.1-8B-Instruct",
            url: "http://llm-runner:8000",
            token: "t",
            capacity: 4,
            price_per_unit: 0.05,
            currency: "USD",
            gateway: "0x1111111111111111111111111111111111111111",
          },
        ]),
      ),
    ).toEqual([]);
  });

  it("an empty list", () => {
    expect(parseAiModels("[]")).toEqual({ models: [] });
  });
});

describe("parseAiModels rejects, saying what to write", () => {
  it("a container-runtime LLM tag as model id", () => {
    expect(errorsOf('[{"pipeline":"llm","model_id":"llama3:8b"}]')).toEqual([
      expect.stringMatching(
        /^entry 0, field model_id: model_id "llama3:8b" is a container-runtime LLM tag, not a model id: use the model's "<org>\/<model>" id/,
      ),
    ]);
  });

  it("an id without the organisation prefix, reminding that ids are case-sensitive", () => {
    expect(errorsOf('[{"pipeline":"text-to-image","model_id":"sd-turbo"}]')).toEqual([
      expect.stringMatching(/^entry 0, field model_id: .*is not "<org>\/<model>".*case-sensitive/),
    ]);
  });

  it("capacity below 1", () => {
    expect(errorsOf('[{"pipeline":"text-to-image","model_id":"a/b","capacity":0}]')).toEqual([
      expect.stringMatching(/^entry 0, field capacity: capacity must be >= 1/),
    ]);
    expect(errorsOf('[{"pipeline":"text-to-image","model_id":"a/b","capacity":1.5}]')).toEqual([
      expect.stringMatching(/^entry 0, field capacity: capacity must be a whole number/),
    ]);
  });

  it("a price written as a string, showing the number and the separate currency", () => {
    expect(errorsOf('[{"pipeline":"text-to-image","model_id":"a/b","price_per_unit":"0.5USD"}]')).toEqual([
      'entry 0, field price_per_unit: price_per_unit must be a JSON number, not the string "0.5USD": write "price_per_unit": 0.5 and put the currency in its own field, "currency": "USD"',
    ]);
    expect(errorsOf('[{"pipeline":"text-to-image","model_id":"a/b","price_per_unit":"1000"}]')).toEqual([
      expect.stringContaining('drop the quotes ("price_per_unit": 1000)'),
    ]);
    expect(errorsOf('[{"pipeline":"text-to-image","model_id":"a/b","pixels_per_unit":"1"}]')).toEqual([
      expect.stringMatching(/^entry 0, field pixels_per_unit: pixels_per_unit must be a JSON number/),
    ]);
  });

  it("camelCase field names, pointing at the snake_case one", () => {
    expect(errorsOf('[{"pipeline":"text-to-image","model_id":"a/b","pricePerUnit":1}]')).toEqual([
      'entry 0: unknown field "pricePerUnit": did you mean "price_per_unit"? aiModels.json uses snake_case names',
    ]);
  });

  it("missing required fields", () => {
    expect(errorsOf('[{"warm":true}]')).toEqual([
      expect.stringMatching(/^entry 0, field pipeline: pipeline is required/),
      expect.stringMatching(/^entry 0, field model_id: model_id is required/),
    ]);
  });

  it("a token without an external runner, and a currency without a price", () => {
    expect(errorsOf('[{"pipeline":"text-to-image","model_id":"a/b","token":"t","currency":"USD"}]')).toEqual([
      "entry 0, field token: token is only sent to an external runner: set url too, or remove token",
      "entry 0, field currency: currency names the unit of price_per_unit: set price_per_unit too, or remove currency",
    ]);
  });

  it("the same model twice in one pipeline", () => {
    expect(
      errorsOf(
        '[{"pipeline":"text-to-image","model_id":"a/b"},{"pipeline":"text-to-image","model_id":"a/b"}]',
      ),
    ).toEqual([expect.stringMatching(/^entry 1, field model_id: .*already entry 0/)]);
  });

  it("a warm flag written as a string and an entry that is not an object", () => {
    expect(errorsOf('[{"pipeline":"text-to-image","model_id":"a/b","warm":"true"}]')).toEqual([
      "entry 0, field warm: warm must be true or false (a JSON boolean, not a string)",
    ]);
    expect(errorsOf("[1]")).toEqual([expect.stringMatching(/^entry 0: each entry must be a JSON object/)]);
  });

  it("a file that is not a JSON array", () => {
    expect(errorsOf('{"pipeline":"text-to-image"}')).toEqual([
      "aiModels.json must be a JSON array of model entries",
    ]);
    expect(errorsOf("[{")).toEqual([expect.stringMatching(/^aiModels.json is not valid JSON/)]);
  });
});
