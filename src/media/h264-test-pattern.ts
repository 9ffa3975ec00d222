// A tiny, valid H.264 stream written bit by bit, so tests and the stream pusher need no encoder:
// Constrained Baseline, CAVLC, one IDR picture per group of pictures made of I_PCM macroblocks
// (raw samples: a gradient whose shade moves with each group), then P pictures whose every
// macroblock is skipped (a still picture, a few bytes each). Any decoder plays it.
import { BitWriter, nalUnit } from "./bit-writer.ts";

export interface PatternSize {
  /** Multiples of 16. */
  width: number;
  height: number;
}

export interface AccessUnit {
  /** NAL units without start codes (AUD, SPS and PPS included where they belong). */
  nals: Uint8Array[];
  keyframe: boolean;
}

const NAL = { nonIdrSlice: 1, idrSlice: 5, sps: 7, pps: 8, aud: 9 } as const;
const LOG2_MAX_FRAME_NUM = 8;
const I_PCM = 25;

function macroblocks(size: PatternSize): { across: number; down: number } {
  if (size.width % 16 || size.height % 16 || size.width <= 0 || size.height <= 0) {
    throw new RangeError(`test pattern size ${size.width}x${size.height}: use multiples of 16`);
  }
  return { across: size.width / 16, down: size.height / 16 };
}

export function spsNal(size: PatternSize, fps: number): Uint8Array {
  const { across, down } = macroblocks(size);
  const w = new BitWriter()
    .u(8, 66) // profile_idc: Baseline
    .u(8, 0b1100_0000) // constraint_set0 and set1: Constrained Baseline; reserved zeros
    .u(8, 10) // level_idc 1.0 (small pictures)
    .ue(0) // seq_parameter_set_id
    .ue(LOG2_MAX_FRAME_NUM - 4)
    .ue(2) // pic_order_cnt_type 2: display order = decode order
    .ue(1) // max_num_ref_frames
    .u(1, 0) // gaps_in_frame_num_value_allowed_flag
    .ue(across - 1)
    .ue(down - 1)
    .u(1, 1) // frame_mbs_only_flag
    .u(1, 1) // direct_8x8_inference_flag
    .u(1, 0) // frame_cropping_flag
    .u(1, 1) // vui_parameters_present_flag
    .u(4, 0) // aspect ratio, overscan, video signal type, chroma location: absent
    .u(1, 1) // timing_info_present_flag
    .u(32, 1) // num_units_in_tick
    .u(32, 2 * fps) // time_scale (two ticks per frame)
    .u(1, 1) // fixed_frame_rate_flag
    .u(4, 0); // no HRD parameters, no pic_struct, no bitstream restriction
  return nalUnit(3, NAL.sps, w.trailing());
}

export function ppsNal(): Uint8Array {
  const w = new BitWriter()
    .ue(0) // pic_parameter_set_id
    .ue(0) // seq_parameter_set_id
    .u(1, 0) // entropy_coding_mode_flag: CAVLC
    .u(1, 0) // bottom_field_pic_order_in_frame_present_flag
    .ue(0) // num_slice_groups_minus1
    .ue(0) // num_ref_idx_l0_default_active_minus1
    .ue(0) // num_ref_idx_l1_default_active_minus1
    .u(1, 0) // weighted_pred_flag
    .u(2, 0) // weighted_bipred_idc
    .se(0) // pic_init_qp_minus26
    .se(0) // pic_init_qs_minus26
    .se(0) // chroma_qp_index_offset
    .u(1, 1) // deblocking_filter_control_present_flag (slices turn it off)
    .u(1, 0) // constrained_intra_pred_flag
    .u(1, 0); // redundant_pic_cnt_present_flag
  return nalUnit(3, NAL.pps, w.trailing());
}

export function audNal(): Uint8Array {
  return Uint8Array.of(NAL.aud, 0xf0); // primary_pic_type 7 (any), then the trailing bits
}

/** An IDR picture of I_PCM macroblocks: a diagonal luma gradient offset by shade. */
export function idrNal(size: PatternSize, idrPicId: number, shade: number): Uint8Array {
  const { across, down } = macroblocks(size);
  const w = new BitWriter()
    .ue(0) // first_mb_in_slice
    .ue(7) // slice_type: I (all slices)
    .ue(0) // pic_parameter_set_id
    .u(LOG2_MAX_FRAME_NUM, 0) // frame_num
    .ue(idrPicId % 65536)
    .u(1, 0) // no_output_of_prior_pics_flag
    .u(1, 0) // long_term_reference_flag
    .se(0) // slice_qp_delta
    .ue(1); // disable_deblocking_filter_idc
  for (let my = 0; my < down; my++) {
    for (let mx = 0; mx < across; mx++) {
      w.ue(I_PCM).alignZero();
      const samples: number[] = [];
      for (let y = 0; y < 16; y++) {
        for (let x = 0; x < 16; x++) samples.push(16 + ((mx * 16 + x + my * 16 + y + shade * 24) % 220));
      }
      for (let i = 0; i < 128; i++) samples.push(i < 64 ? 90 : 160); // Cb, Cr
      w.bytesRaw(samples);
    }
  }
  return nalUnit(3, NAL.idrSlice, w.trailing());
}

/** A P picture that repeats the previous one: every macroblock skipped. */
export function skipNal(size: PatternSize, frameNum: number): Uint8Array {
  const { across, down } = macroblocks(size);
  const w = new BitWriter()
    .ue(0) // first_mb_in_slice
    .ue(5) // slice_type: P (all slices)
    .ue(0) // pic_parameter_set_id
    .u(LOG2_MAX_FRAME_NUM, frameNum % (1 << LOG2_MAX_FRAME_NUM))
    .u(1, 0) // num_ref_idx_active_override_flag
    .u(1, 0) // ref_pic_list_modification_flag_l0
    .u(1, 0) // adaptive_ref_pic_marking_mode_flag
    .se(0) // slice_qp_delta
    .ue(1) // disable_deblocking_filter_idc
    .ue(across * down); // mb_skip_run: the whole picture
  return nalUnit(2, NAL.nonIdrSlice, w.trailing());
}

/** One group of pictures: an IDR (with AUD, SPS, PPS) then frames - 1 skipped pictures. */
export function testPatternGop(size: PatternSize, options: { frames: number; fps: number; index: number }) {
  const units: AccessUnit[] = [
    {
      keyframe: true,
      nals: [audNal(), spsNal(size, options.fps), ppsNal(), idrNal(size, options.index % 2, options.index)],
    },
  ];
  for (let n = 1; n < options.frames; n++)
    units.push({ keyframe: false, nals: [audNal(), skipNal(size, n)] });
  return units;
}
