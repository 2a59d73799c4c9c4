{{/*
The agent's collector configs: config.yaml (deploy/kubernetes/agent-config.yaml), merge.yaml
(components/merge/agent-merge.yaml), kafka.yaml (components/kafka/agent-kafka.yaml) and
k8s-metadata.yaml (components/k8s-metadata/agent-k8s-metadata.yaml), with the names of this
release and the values. Why each setting is what it is: the comments there.
*/}}
{{- define "otelcol-mergelog.agentConfig" -}}
receivers:
  mergelog:
    # kubelet's pod logs and their rotations (<restart>.log.<time>, later gzipped).
    include: [/var/log/pods/*/*/*.log, /var/log/pods/*/*/*.log.*]
    # The collectors' own pods (a log loop otherwise), then agent.exclude.
    exclude:
      - /var/log/pods/${env:K8S_NAMESPACE}_{{ include "otelcol-mergelog.agentName" . }}-*/*/*
      - /var/log/pods/${env:K8S_NAMESPACE}_{{ include "otelcol-mergelog.gatewayName" . }}-*/*/*
      {{- with .Values.agent.exclude }}
      {{- toYaml . | nindent 6 }}
      {{- end }}
    start_at: beginning
    # CRI and Docker lines; the pod's identity from the path.
    format: container
    # Stack traces joined into one record each, no pattern to write (see the receiver README).
    multiline:
      detect: [all]
    include_file_name: false
    include_file_path: true
    storage: file_storage
    resource:
      k8s.node.name: ${env:K8S_NODE_NAME}
    # Straight to the exporter, several batches in flight; checkpointed once the gateway
    # accepted them: the files on the node are the buffer.
    batch:
      max_records: 2000
      max_bytes: 1MiB
      max_in_flight: 2
    max_deleted_bytes: 1GiB
    # Entries not finished yet, across all files: a catch-up of long lines stays small.
    max_partial_bytes: 4MiB

extensions:
  # Checkpoints on the node (hostPath), kept across restarts and upgrades.
  file_storage:
    directory: /var/lib/otelcol
  health_check:
    endpoint: ${env:K8S_POD_IP}:13133
  # The executable's pages that only start-up used, given back once the pipelines run.
  pageout: {}

processors:
  memory_limiter:
    check_interval: 1s
    limit_mib: {{ .Values.agent.memoryLimiter.limitMiB }}
    spike_limit_mib: {{ .Values.agent.memoryLimiter.spikeLimitMiB }}

exporters:
  otlp_grpc:
    endpoint: {{ include "otelcol-mergelog.gatewayName" . }}:4317
    tls:
      insecure: true
    compression: snappy
    # No queue, endless retries: the receiver checkpoints what the gateway accepted.
    sending_queue:
      enabled: false
    retry_on_failure:
      enabled: true
      max_elapsed_time: 0

service:
  extensions: [file_storage, health_check, pageout]
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
      receivers: [mergelog]
      processors: [memory_limiter]
      exporters: [otlp_grpc]
{{- end }}

{{- define "otelcol-mergelog.agentMergeConfig" -}}
receivers:
  mergelog:
    merge:
      enabled: true
      window: {{ .Values.merge.agentWindow }}

exporters:
  # Every record of one merge stream to the same gateway, through the headless Service.
  load_balancing:
    routing_key: attributes
    routing_attributes: {{ toJson .Values.merge.key }}
    resolver:
      dns:
        hostname: {{ include "otelcol-mergelog.gatewayName" . }}-headless
        port: "4317"
    protocol:
      otlp:
        tls:
          insecure: true
        compression: snappy
        sending_queue:
          enabled: false
        retry_on_failure:
          enabled: false
    sending_queue:
      enabled: false
    retry_on_failure:
      enabled: true
      max_elapsed_time: 0

service:
  pipelines:
    logs:
      exporters: [load_balancing]
{{- end }}

{{- define "otelcol-mergelog.agentKafkaConfig" -}}
processors:
  # The resource keeps only the merge key, which keys the partition; the rest travels in a
  # scope attribute the gateway puts back.
  transform/kafka_key:
    error_mode: propagate
    log_statements:
      - context: scope
        statements:
          - set(scope.attributes["mergelog.resource"], resource.attributes)
      - context: resource
        statements:
          {{- $keys := list }}
          {{- range .Values.merge.key }}{{ $keys = append $keys (quote .) }}{{ end }}
          - {{ printf "keep_keys(resource.attributes, [%s])" (join ", " $keys) | quote }}

exporters:
  kafka:
    brokers: {{ toJson .Values.kafka.brokers }}
    logs:
      topic: {{ .Values.kafka.topic | quote }}
      encoding: otlp_proto
    partition_logs_by_resource_attributes: true
    producer:
      required_acks: -1
      compression: snappy
      max_message_bytes: 8388608
      allow_auto_topic_creation: false
    sending_queue:
      enabled: false
    retry_on_failure:
      enabled: true
      max_elapsed_time: 0

service:
  pipelines:
    logs:
      processors: [memory_limiter, transform/kafka_key]
      exporters: [kafka]
{{- end }}


{{- define "otelcol-mergelog.agentK8sMetadataConfig" -}}
processors:
  # Each record's pod, looked up by the k8s.pod.uid the receiver takes from the path, among the
  # pods of the agent's node; the pipeline starts once they are listed.
  k8s_attributes:
    auth_type: serviceAccount
    filter:
      node_from_env_var: K8S_NODE_NAME
    wait_for_metadata: true
    wait_for_metadata_timeout: {{ .Values.k8sMetadata.waitForMetadataTimeout }}
    pod_association:
      - sources:
          - from: resource_attribute
            name: k8s.pod.uid
    extract:
      # Owners from the pod's ownerReferences (no ReplicaSet or Job informer), service.* as the
      # semantic conventions derive them.
      metadata:
        - k8s.deployment.name
        - k8s.replicaset.name
        - k8s.statefulset.name
        - k8s.daemonset.name
        - k8s.job.name
        - k8s.cronjob.name
        - service.name
        - service.namespace
        - service.version
        - service.instance.id
        - container.image.name
      otel_annotations: true
      labels:
        - tag_name: k8s.pod.label.app.kubernetes.io/$$1
          key_regex: app\.kubernetes\.io/(.*)
          from: pod

service:
  pipelines:
    logs:
      # This file comes after kafka.yaml: with kafka.enabled the list keeps its transform last.
      processors: [memory_limiter, k8s_attributes{{ if .Values.kafka.enabled }}, transform/kafka_key{{ end }}]
{{- end }}

{{/*
The agent's gateway-namespace.yaml, with the gateways in a namespace of their own
(components/gateway-namespace, or -merge): their address and their pods' logs there.
*/}}
{{- define "otelcol-mergelog.agentGatewayNamespaceConfig" -}}
{{- $ns := include "otelcol-mergelog.gatewayNamespace" . -}}
receivers:
  mergelog:
    exclude:
      - /var/log/pods/${env:K8S_NAMESPACE}_{{ include "otelcol-mergelog.agentName" . }}-*/*/*
      - /var/log/pods/{{ $ns }}_{{ include "otelcol-mergelog.gatewayName" . }}-*/*/*
      {{- with .Values.agent.exclude }}
      {{- toYaml . | nindent 6 }}
      {{- end }}
exporters:
{{- if .Values.merge.enabled }}
  load_balancing:
    resolver:
      dns:
        hostname: {{ include "otelcol-mergelog.gatewayName" . }}-headless.{{ $ns }}.svc
{{- else }}
  otlp_grpc:
    endpoint: {{ include "otelcol-mergelog.gatewayName" . }}.{{ $ns }}.svc:4317
{{- end }}
{{- end }}
