"""Label, annotation, port and env-name constants of the operator.

Mirrors: internal/consts/consts.go, plus the rendering literals that live elsewhere
(internal/controller/dynamocomponentdeployment_renderer.go dcdWorkloadRoleLabel,
internal/controller/deployment_strategy.go, internal/discovery/resource.go).
"""

from __future__ import annotations

# API identity of the objects we read.
DYNAMO_GROUP = "nvidia.com"
DCD_KIND = "DynamoComponentDeployment"
DGD_KIND = "DynamoGraphDeployment"
V1BETA1 = "nvidia.com/v1beta1"
V1ALPHA1 = "nvidia.com/v1alpha1"
OPERATOR_CONFIG_API_VERSION = "operator.config.dynamo.nvidia.com/v1alpha1"
OPERATOR_CONFIG_KIND = "OperatorConfiguration"
LWS_API_VERSION = "leaderworkerset.x-k8s.io/v1"

# Ports and port names.
DYNAMO_SERVICE_PORT = 8000
DYNAMO_SERVICE_PORT_NAME = "http"
DYNAMO_CONTAINER_PORT_NAME = "http"
DYNAMO_PLANNER_METRICS_PORT = 9085
DYNAMO_METRICS_PORT_NAME = "metrics"
DYNAMO_SYSTEM_PORT = 9090
DYNAMO_SYSTEM_PORT_NAME = "system"
EPP_GRPC_PORT = 9002
EPP_GRPC_PORT_NAME = "grpc"
EPP_GRPC_HEALTH_PORT = 9003
DYNAMO_NIXL_PORT = 19090
DYNAMO_NIXL_PORT_NAME = "nixl"
DYNAMO_FPM_BASE_PORT = 20380
MPI_RUN_SSH_PORT = 2222
VLLM_MP_MASTER_PORT = "29500"

# Labels.
LABEL_SELECTOR = "nvidia.com/selector"
LABEL_GRAPH_DEPLOYMENT_NAME = "nvidia.com/dynamo-graph-deployment-name"
LABEL_COMPONENT = "nvidia.com/dynamo-component"
LABEL_NAMESPACE = "nvidia.com/dynamo-namespace"
LABEL_COMPONENT_TYPE = "nvidia.com/dynamo-component-type"
LABEL_SUB_COMPONENT_TYPE = "nvidia.com/dynamo-sub-component-type"
LABEL_COMPONENT_CLASS = "nvidia.com/dynamo-component-class"
LABEL_BASE_MODEL_HASH = "nvidia.com/dynamo-base-model-hash"
LABEL_DISCOVERY_BACKEND = "nvidia.com/dynamo-discovery-backend"
LABEL_DISCOVERY_ENABLED = "nvidia.com/dynamo-discovery-enabled"
LABEL_WORKER_HASH = "nvidia.com/dynamo-worker-hash"
LABEL_COMPONENT_POD = "nvidia.com/dynamo-component-pod"
LABEL_METRICS_ENABLED = "nvidia.com/metrics-enabled"
LABEL_MANAGED_BY = "nvidia.com/managed-by"
LABEL_ROLE = "role"
LABEL_VALUE_TRUE = "true"
LABEL_VALUE_FALSE = "false"

# Checkpoint/snapshot protocol keys that every rendered pod template is scrubbed of.
LABEL_SNAPSHOT_CHECKPOINT_ID = "nvidia.com/snapshot-checkpoint-id"
LABEL_SNAPSHOT_IS_RESTORE_TARGET = "nvidia.com/snapshot-is-restore-target"
LABEL_SNAPSHOT_IS_CHECKPOINT_SOURCE = "nvidia.com/snapshot-is-checkpoint-source"
ANNOTATION_SNAPSHOT_ARTIFACT_VERSION = "nvidia.com/snapshot-artifact-version"
ANNOTATION_SNAPSHOT_RESTORE_STATUS = "nvidia.com/snapshot-restore-status"
ANNOTATION_SNAPSHOT_RESTORE_CONTAINER_ID = "nvidia.com/snapshot-restore-container-id"
ANNOTATION_SNAPSHOT_TARGET_CONTAINERS = "nvidia.com/snapshot-target-containers"
ANNOTATION_SNAPSHOT_STORAGE_TYPE = "nvidia.com/snapshot-storage-type"
ANNOTATION_SNAPSHOT_STORAGE_BASE_PATH = "nvidia.com/snapshot-storage-base-path"
ANNOTATION_CHECKPOINT_RESTORE_CANDIDATE = "nvidia.com/dynamo-checkpoint-restore-candidate"
ANNOTATION_CHECKPOINT_NAME = "nvidia.com/dynamo-checkpoint-name"
ANNOTATION_CHECKPOINT_STARTUP_POLICY = "nvidia.com/dynamo-checkpoint-startup-policy"

# Annotations.
ANNOTATION_DISABLE_IMAGE_PULL_SECRET_DISCOVERY = "nvidia.com/disable-image-pull-secret-discovery"
ANNOTATION_DISCOVERY_BACKEND = "nvidia.com/dynamo-discovery-backend"
ANNOTATION_KUBE_DISCOVERY_MODE = "nvidia.com/dynamo-kube-discovery-mode"
ANNOTATION_BASE_MODEL = "nvidia.com/dynamo-base-model"
ANNOTATION_TOPOLOGY_LABEL_KEY = "nvidia.com/topology-label-key"
ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME = "nvidia.com/topology-cluster-topology-name"
ANNOTATION_OPERATOR_ORIGIN_VERSION = "nvidia.com/dynamo-operator-origin-version"
ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND = "nvidia.com/vllm-distributed-executor-backend"
ANNOTATION_ENABLE_METRICS = "nvidia.com/enable-metrics"
ANNOTATION_DCD_SPEC = "nvidia.com/dcd-spec"
ANNOTATION_DCD_STATUS = "nvidia.com/dcd-status"
# the v1alpha1 <-> v1beta1 conversion keeps what the other version cannot hold in these
ANNOTATION_DGD_CONVERSION_PREFIX = "nvidia.com/dgd-"
ANNOTATION_DGD_SPEC = "nvidia.com/dgd-spec"
ANNOTATION_DGD_STATUS = "nvidia.com/dgd-status"
ANNOTATION_DEPLOYMENT_STRATEGY = "nvidia.com/deployment-strategy"
ANNOTATION_MAX_SURGE = "nvidia.com/deployment-rolling-update-max-surge"
ANNOTATION_MAX_UNAVAILABLE = "nvidia.com/deployment-rolling-update-max-unavailable"
ANNOTATION_ISTIO_SIDECAR_INJECT = "sidecar.istio.io/inject"

TOPOLOGY_SOURCE_ANNOTATION_KEYS = (ANNOTATION_TOPOLOGY_LABEL_KEY, ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME)

# Environment variable names.
ENV_DYNAMO_PORT = "DYNAMO_PORT"
ENV_DYN_NAMESPACE = "DYN_NAMESPACE"
ENV_DYN_NAMESPACE_PREFIX = "DYN_NAMESPACE_PREFIX"
ENV_DYN_NAMESPACE_WORKER_SUFFIX = "DYN_NAMESPACE_WORKER_SUFFIX"
ENV_DYN_COMPONENT = "DYN_COMPONENT"
ENV_DYN_DISCOVERY_BACKEND = "DYN_DISCOVERY_BACKEND"

# Component types.
COMPONENT_TYPE_PLANNER = "planner"
COMPONENT_TYPE_FRONTEND = "frontend"
COMPONENT_TYPE_WORKER = "worker"
COMPONENT_TYPE_PREFILL = "prefill"
COMPONENT_TYPE_DECODE = "decode"
COMPONENT_TYPE_EPP = "epp"
COMPONENT_TYPES = (
    COMPONENT_TYPE_FRONTEND,
    COMPONENT_TYPE_WORKER,
    COMPONENT_TYPE_PREFILL,
    COMPONENT_TYPE_DECODE,
    COMPONENT_TYPE_PLANNER,
    COMPONENT_TYPE_EPP,
)
WORKER_COMPONENT_TYPES = frozenset({COMPONENT_TYPE_WORKER, COMPONENT_TYPE_PREFILL, COMPONENT_TYPE_DECODE})

MAIN_CONTAINER_NAME = "main"
PLANNER_SERVICE_ACCOUNT_NAME = "planner-serviceaccount"
EPP_SERVICE_ACCOUNT_NAME = "epp-serviceaccount"
DEFAULT_SERVICE_ACCOUNT_NAME = "default"
GLOBAL_DYNAMO_NAMESPACE = "dynamo"
DEFAULT_INGRESS_SUFFIX = "local"

# Discovery.
DISCOVERY_BACKEND_KUBERNETES = "kubernetes"
DISCOVERY_BACKEND_ETCD = "etcd"
KUBE_DISCOVERY_MODE_POD = "pod"
KUBE_DISCOVERY_MODE_CONTAINER = "container"
K8S_DISCOVERY_SA_SUFFIX = "-k8s-service-discovery"

# Pod defaults.
DEFAULT_SECURITY_CONTEXT_FS_GROUP = 1000
SHARED_MEMORY_VOLUME_NAME = "shared-memory"
SHARED_MEMORY_MOUNT_PATH = "/dev/shm"
DEFAULT_SHARED_MEMORY_SIZE = "8Gi"
DEFAULT_VLLM_CACHE_MOUNT_POINT = "/root/.cache/vllm"
RESOURCE_GPU_NVIDIA = "nvidia.com/gpu"

# Deployment strategy defaults.
DEFAULT_MAX_SURGE = "25%"
DEFAULT_MAX_UNAVAILABLE = "25%"
DEPLOYMENT_STRATEGY_RECREATE = "Recreate"

# Roles.
ROLE_MAIN = "main"
ROLE_LEADER = "leader"
ROLE_WORKER = "worker"

# Backend frameworks.
BACKEND_SGLANG = "sglang"
BACKEND_VLLM = "vllm"
BACKEND_TRTLLM = "trtllm"
BACKEND_NOOP = "noop"
BACKEND_FRAMEWORKS = (BACKEND_SGLANG, BACKEND_VLLM, BACKEND_TRTLLM)

# Input nesting bound: a YAML or JSON document, or the JSON text of an annotation the
# conversion decodes, nested deeper than this many levels is refused.
MAX_DEPTH = 100
# The longest number literal read from JSON in an annotation: Python's default limit on
# converting a decimal string to an integer (sys.int_info.default_max_str_digits).
MAX_NUMBER_DIGITS = 4300
