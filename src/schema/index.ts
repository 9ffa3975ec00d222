// The single source of truth for the custom resources and the webhook API objects.

export {
  AI_RUNNER_PORT,
  type AiModelSpec,
  AiModelSpecSchema,
  type AiModelStatus,
  type AiRunnerSpec,
  type AiSpec,
  AiSpecSchema,
  type AiStatus,
} from "./ai.ts";
export { API_VERSION, CATEGORY, customResourceType, GROUP, VERSION } from "./api-group.ts";
export { type ChainSpec, chainFields, chainRules } from "./chain.ts";
export {
  CONDITION_STATUSES,
  CONDITION_TYPES,
  type Condition,
  ConditionListSchema,
  ConditionSchema,
  type ConditionStatus,
  ConditionType,
  GATEWAY_CONDITION_TYPES,
  ORCHESTRATOR_CONDITION_TYPES,
  REMOTE_SIGNER_CONDITION_TYPES,
  WEBHOOK_CONDITION_TYPES,
} from "./condition.ts";
export {
  CRD_OPERATOR_VERSION_ANNOTATION,
  CRD_SCHEMA_DIGEST_ANNOTATION,
  type CrdDefinition,
  crdFileName,
  crdJsonSchema,
  crdYaml,
  customResourceDefinition,
  type PrinterColumn,
} from "./crd.ts";
export { CRD_DIR, type GeneratedFile, generatedFiles } from "./crd-files.ts";
export {
  type CelValidation,
  type CrossFieldRule,
  celValidation,
  type TransitionRule,
  withRules,
} from "./cross-field-rule.ts";
export { customResourceSchema, type Loose, type Stored } from "./custom-resource.ts";
export {
  FINDING_SEVERITIES,
  type Finding,
  FindingListSchema,
  FindingSchema,
  type FindingSeverity,
} from "./finding.ts";
export {
  GATEWAY_HTTP_PORT,
  GATEWAY_RTMP_PORT,
  type Gateway,
  type GatewayRemoteSigner,
  GatewayRemoteSignerSchema,
  GatewaySchema,
  type GatewaySignerStatus,
  GatewaySignerStatusSchema,
  type GatewaySpec,
  GatewaySpecSchema,
  type GatewayStatus,
  GatewayStatusSchema,
  IngestSpecSchema,
  type LabelSelector,
  LabelSelectorSchema,
  MaxPriceForCapabilitySchema,
  type OrchestratorsSource,
  OrchestratorsSourceSchema,
  type StoredGateway,
  StreamEventsSpecSchema,
} from "./gateway.ts";
export { GPU_PRODUCT_PATTERN, type GpuSpec, GpuSpecSchema } from "./gpu.ts";
export { objectName, QuantitySchema, SecretKeySchema } from "./kubernetes-fields.ts";
export { type ObjectMetaLite, ObjectMetaLiteSchema } from "./object-meta.ts";
export {
  ORCHESTRATOR_SERVICE_PORT,
  type Orchestrator,
  OrchestratorSchema,
  type OrchestratorSpec,
  OrchestratorSpecSchema,
  type OrchestratorStatus,
  OrchestratorStatusSchema,
  type StoredOrchestrator,
  type TranscodersSpec,
  TranscodersSpecSchema,
} from "./orchestrator.ts";
export { type PodTemplateOverrides, PodTemplateOverridesSchema, TolerationSchema } from "./pod-template.ts";
export { PRICE_PATTERN, priceSchema } from "./price.ts";
export {
  REMOTE_SIGNER_HTTP_PORT,
  type RemoteSigner,
  RemoteSignerSchema,
  type RemoteSignerSpec,
  RemoteSignerSpecSchema,
  type RemoteSignerStatus,
  RemoteSignerStatusSchema,
  type SignerMaxPrice,
  SignerMaxPriceSchema,
  type SignerTenant,
  SignerTenantSchema,
  type StoredRemoteSigner,
} from "./remote-signer.ts";
export {
  CUSTOM_RESOURCES,
  GatewayCrd,
  Gateways,
  OrchestratorCrd,
  Orchestrators,
  RemoteSignerCrd,
  RemoteSigners,
  WebhookCrd,
  Webhooks,
} from "./resources.ts";
export { StructuralSchemaError, toStructural, undescribedFields } from "./structural.ts";
export {
  type SecretKeyRef,
  SecretKeyRefSchema,
  type StoredWebhook,
  WEBHOOK_CREATED_AT_ANNOTATION,
  WEBHOOK_PROJECT_ID_LABEL,
  WEBHOOK_USER_ID_LABEL,
  type Webhook,
  WebhookSchema,
  type WebhookSpec,
  WebhookSpecSchema,
  type WebhookStatus,
  WebhookStatusSchema,
} from "./webhook.ts";
export {
  type ErrorObject,
  ErrorObjectSchema,
  ProjectIdSchema,
  SharedSecretSchema,
  StreamIdSchema,
  UserIdSchema,
  WEBHOOK_READ_ONLY_FIELDS,
  WEBHOOK_URL_PATTERN,
  WEBHOOK_WRITABLE_FIELDS,
  type WebhookDeliveryStatus,
  WebhookDeliveryStatusSchema,
  WebhookEventsSchema,
  type WebhookLastFailure,
  WebhookLastFailureSchema,
  WebhookNameSchema,
  type WebhookObject,
  WebhookObjectSchema,
  type WebhookRequest,
  WebhookRequestSchema,
  type WebhookResponse,
  WebhookResponseSchema,
  WebhookUrlSchema,
} from "./webhook-api.ts";
export {
  isWebhookEventKind,
  WEBHOOK_EVENT_KINDS,
  type WebhookEventKind,
  WebhookEventKindSchema,
} from "./webhook-events.ts";
export { SERVICE_TYPES, StorageSpecSchema, serviceSpecSchema } from "./workload.ts";
