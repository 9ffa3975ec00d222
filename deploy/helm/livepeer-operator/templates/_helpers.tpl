{{- define "lpo.name" -}}livepeer-operator{{- end -}}
{{- define "lpo.fullname" -}}{{ printf "%s" .Release.Name | trunc 40 | trimSuffix "-" }}{{- end -}}
{{- define "lpo.image" -}}{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}{{- end -}}
{{- define "lpo.labels" -}}
app.kubernetes.io/name: {{ include "lpo.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}
{{- define "lpo.selector" -}}
app.kubernetes.io/name: {{ include "lpo.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
{{- define "lpo.jwtSecret" -}}{{ .Values.api.jwt.existingSecret | default (printf "%s-api-jwt" (include "lpo.fullname" .)) }}{{- end -}}
{{/* Restricted pod security: non-root, read-only root, no capabilities, RuntimeDefault seccomp. */}}
{{- define "lpo.podSecurity" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}
{{- define "lpo.containerSecurity" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end -}}
{{/*
The controller's rights where Orchestrators, Gateways and RemoteSigners live: a ClusterRole by default, a Role in
each of controller.watchNamespaces otherwise. Secrets only by name (get, create, patch): the
keystore Secret a spec names is read, the generated ones are made and checked; never list or
watch, so it cannot enumerate other tenants' Secrets.
*/}}
{{- define "lpo.controllerRules" }}
  - apiGroups: ["livepeer.org"]
    resources: ["orchestrators", "gateways", "remotesigners"]
    verbs: ["list", "watch"]
  - apiGroups: ["livepeer.org"]
    resources: ["orchestrators/status", "gateways/status", "remotesigners/status"]
    verbs: ["patch"]
  # RemoteSigners: a disruption budget with replicas > 1 (deleted when they go back to one), the
  # NetworkPolicy in front of the signer, and the signer pods' own identity, the one account granted
  # get on the keystore Secret (a Role the controller can grant: it has get on Secrets itself).
  - apiGroups: ["policy"]
    resources: ["poddisruptionbudgets"]
    verbs: ["list", "watch", "create", "patch", "delete"]
  - apiGroups: ["networking.k8s.io"]
    resources: ["networkpolicies"]
    verbs: ["list", "watch", "create", "patch"]
  - apiGroups: [""]
    resources: ["serviceaccounts"]
    verbs: ["list", "watch", "create", "patch"]
  - apiGroups: ["rbac.authorization.k8s.io"]
    resources: ["roles", "rolebindings"]
    verbs: ["list", "watch", "create", "patch"]
  - apiGroups: ["apps"]
    resources: ["statefulsets"]
    verbs: ["list", "watch", "create", "patch"]
  # AI runners (spec.ai): one Deployment and Service per model, deleted when the model is removed.
  - apiGroups: ["apps"]
    resources: ["deployments"]
    verbs: ["list", "watch", "create", "patch", "delete"]
  - apiGroups: [""]
    resources: ["services"]
    verbs: ["list", "watch", "create", "patch", "delete"]
  - apiGroups: [""]
    resources: ["configmaps"]
    verbs: ["get", "list", "watch", "create", "patch"]
  - apiGroups: [""]
    resources: ["secrets"]
    verbs: ["get", "create", "patch"]
  - apiGroups: [""]
    resources: ["pods"]
    verbs: ["list", "watch", "patch", "delete"]
  # The node doctor reads node pods' logs (bounded reads, no follow).
  - apiGroups: [""]
    resources: ["pods/log"]
    verbs: ["get"]
  - apiGroups: ["events.k8s.io"]
    resources: ["events"]
    verbs: ["create", "patch"]
{{- end }}
{{/*
Replicas of one component spread over nodes (maxSkew 1 on the hostname): two replicas never share a
node while another eligible node exists. Nodes the pods cannot go to (taints, nodeSelector) are not
counted; only the same revision counts, so a rolling update is not blocked by the old pods.
Call with (list $ "controller" .Values.controller.topologySpread).
*/}}
{{- define "lpo.topologySpread" -}}
{{- $root := index . 0 }}{{- $component := index . 1 }}{{- $spread := index . 2 }}
{{- if $spread.enabled -}}
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: {{ $spread.topologyKey }}
    whenUnsatisfiable: {{ $spread.whenUnsatisfiable }}
    nodeAffinityPolicy: Honor
    nodeTaintsPolicy: Honor
    matchLabelKeys: [pod-template-hash]
    labelSelector:
      matchLabels: {{- include "lpo.selector" $root | nindent 8 }}
        app.kubernetes.io/component: {{ $component }}
{{- end }}
{{- end -}}

