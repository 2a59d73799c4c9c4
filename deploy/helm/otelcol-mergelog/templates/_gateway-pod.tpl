{{/*
The gateway's pod template, for the Deployment (deploy/kubernetes/gateway-deployment.yaml) or,
with merge.enabled, the StatefulSet (components/merge/gateway-statefulset.yaml): the merging
gateway writes the mergelog processor's records to its volume merge-state, as group 65532, and
is given longer to flush on SIGTERM.
*/}}
{{- define "otelcol-mergelog.gatewayPodTemplate" -}}
{{- $merge := .Values.merge.enabled }}
{{- $size := ternary .Values.merge.gateway .Values.gateway $merge -}}
metadata:
  labels:
    {{- include "otelcol-mergelog.labels" (list $ "gateway") | nindent 4 }}
    {{- with .Values.gateway.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    # A changed config rolls the pods.
    checksum/config: {{ include (print $.Template.BasePath "/gateway-configmap.yaml") . | sha256sum }}
    {{- with .Values.gateway.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  automountServiceAccountToken: false
  {{- with .Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.gateway.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.gateway.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.gateway.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  topologySpreadConstraints:
  {{- with .Values.gateway.topologySpreadConstraints }}
    {{- toYaml . | nindent 4 }}
  {{- else }}
    # One gateway per node and per zone where the cluster has room.
    {{- range list "kubernetes.io/hostname" "topology.kubernetes.io/zone" }}
    - maxSkew: 1
      topologyKey: {{ . }}
      whenUnsatisfiable: ScheduleAnyway
      labelSelector:
        matchLabels:
          {{- include "otelcol-mergelog.selectorLabels" (list $ "gateway") | nindent 10 }}
    {{- end }}
  {{- end }}
  {{- with .Values.gateway.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  {{- if $merge }}
  terminationGracePeriodSeconds: {{ .Values.merge.gateway.terminationGracePeriodSeconds }}
  {{- end }}
  securityContext:
    runAsNonRoot: true
    runAsUser: 65532
    runAsGroup: 65532
    {{- if $merge }}
    # The volume is made writable for the collector's group.
    fsGroup: 65532
    {{- end }}
    seccompProfile:
      type: RuntimeDefault
  containers:
    - name: otelcol
      image: {{ include "otelcol-mergelog.image" (list $ "gateway") }}
      imagePullPolicy: {{ .Values.image.pullPolicy }}
      args: {{ include "otelcol-mergelog.args" (list $ "gateway") }}
      env:
        - name: K8S_POD_IP
          valueFrom:
            fieldRef:
              fieldPath: status.podIP
        - name: GOMEMLIMIT
          value: {{ $size.goMemLimit | quote }}
        {{- with .Values.gateway.extraEnv }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      ports:
        - name: otlp-grpc
          containerPort: 4317
        - name: otlp-http
          containerPort: 4318
        - name: health
          containerPort: 13133
        - name: metrics
          containerPort: 8888
      livenessProbe:
        httpGet:
          path: /
          port: health
        periodSeconds: 10
        failureThreshold: 3
      readinessProbe:
        httpGet:
          path: /
          port: health
        periodSeconds: 5
      resources:
        {{- toYaml $size.resources | nindent 8 }}
      securityContext:
        readOnlyRootFilesystem: true
        allowPrivilegeEscalation: false
        privileged: false
        capabilities:
          drop: [ALL]
      volumeMounts:
        - name: config
          mountPath: /etc/otelcol
          readOnly: true
        {{- if $merge }}
        - name: merge-state
          mountPath: /var/lib/otelcol/merge
        {{- end }}
        {{- if .Values.mtls.enabled }}
        # The Secret of mtls.gatewaySecret.
        - name: tls
          mountPath: /etc/otelcol-tls
          readOnly: true
        {{- end }}
  volumes:
    - name: config
      configMap:
        name: {{ include "otelcol-mergelog.gatewayName" . }}
    {{- if .Values.mtls.enabled }}
    - name: tls
      secret:
        secretName: {{ include "otelcol-mergelog.gatewayTLSSecret" . }}
    {{- end }}
{{- end }}
