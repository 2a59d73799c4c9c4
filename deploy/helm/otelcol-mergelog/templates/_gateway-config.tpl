{{/*
The gateway's collector config (config.yaml): deploy/kubernetes/gateway-config.yaml, or with
merge.enabled components/merge/gateway-config.yaml, or with kafka.enabled too
components/kafka/gateway-config.yaml; with the names of this release and the values. Why each
setting is what it is: the comments there.
*/}}
{{- define "otelcol-mergelog.gatewayConfig" -}}
receivers:
{{- if .Values.kafka.enabled }}
  kafka:
    brokers: {{ toJson .Values.kafka.brokers }}
    logs:
      topics: [{{ .Values.kafka.topic | quote }}]
      encoding: otlp_proto
    # Every gateway pod in one consumer group: each partition, and so each merge stream, is
    # consumed by one gateway.
    group_id: {{ .Values.kafka.groupId | default (include "otelcol-mergelog.gatewayName" .) | quote }}
    initial_offset: earliest
    # Offsets marked once the mergelog processor has stored the records.
    message_marking:
      after: true
      on_error: false
    error_backoff:
      enabled: true
      initial_interval: 100ms
      max_interval: 5s
      max_elapsed_time: 0
    session_timeout: 10s
    heartbeat_interval: 3s
{{- else }}
  otlp:
    protocols:
      grpc:
        endpoint: ${env:K8S_POD_IP}:4317
        # Above the agents' batch.max_bytes (1MiB of encoded OTLP).
        max_recv_msg_size_mib: 8
      http:
        endpoint: ${env:K8S_POD_IP}:4318
{{- end }}

extensions:
  health_check:
    endpoint: ${env:K8S_POD_IP}:13133
{{- if .Values.merge.enabled }}
  # The pod's PersistentVolume (volumeClaimTemplates merge-state).
  file_storage/merge:
    directory: /var/lib/otelcol/merge
{{- end }}

processors:
{{- if .Values.kafka.enabled }}
  # Puts back the resource the agents moved into a scope attribute (their transform/kafka_key).
  transform/kafka_key:
    error_mode: propagate
    log_statements:
      - context: scope
        conditions:
          - scope.attributes["mergelog.resource"] != nil
        statements:
          - merge_maps(resource.attributes, scope.attributes["mergelog.resource"], "upsert")
          - delete_key(scope.attributes, "mergelog.resource")
{{- end }}
{{- if .Values.merge.enabled }}
  memory_limiter:
    check_interval: 1s
    limit_mib: {{ .Values.merge.gateway.memoryLimiter.limitMiB }}
    spike_limit_mib: {{ .Values.merge.gateway.memoryLimiter.spikeLimitMiB }}
  mergelog:
    merge_key: {{ toJson .Values.merge.key }}
    source_attributes: {{ toJson .Values.merge.gateway.sourceAttributes }}
    max_delay: {{ .Values.merge.gateway.maxDelay }}
    idle_timeout: {{ .Values.merge.gateway.idleTimeout }}
    release_interval: {{ .Values.merge.gateway.releaseInterval }}
    max_held: {{ .Values.merge.gateway.maxHeld }}
    storage: file_storage/merge
{{- else }}
  # No batch processor: it would answer the agents before the backend accepted.
  memory_limiter:
    check_interval: 1s
    limit_percentage: 80
    spike_limit_percentage: 20
{{- end }}

# gateway.exporters: the default, debug, is a PLACEHOLDER for your backend.
exporters:
  {{- toYaml .Values.gateway.exporters | nindent 2 }}

service:
  extensions: {{ toJson (ternary (list "health_check" "file_storage/merge") (list "health_check") .Values.merge.enabled) }}
  telemetry:
    metrics:
      readers:
        - pull:
            exporter:
              prometheus:
                host: ${env:K8S_POD_IP}
                port: 8888
  pipelines:
    logs:
      receivers: [{{ ternary "kafka" "otlp" .Values.kafka.enabled }}]
      {{- if .Values.kafka.enabled }}
      processors: [transform/kafka_key, memory_limiter, mergelog]
      {{- else if .Values.merge.enabled }}
      processors: [memory_limiter, mergelog]
      {{- else }}
      processors: [memory_limiter]
      {{- end }}
      exporters: {{ keys .Values.gateway.exporters | sortAlpha | toJson }}
{{- end }}
