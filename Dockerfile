# dynamo-render: one image for both container front ends.
#
# - Argo CD config-management plugin sidecar: run with command
#   /var/run/argocd/argocd-cmp-server (Argo CD's own binary, shared by the repo-server's
#   copyutil init container; see argocd/sidecar). The plugin configuration is baked in at
#   /home/argocd/cmp-server/config/plugin.yaml; the sidecar runs `dynamo-render cmp generate`.
# - KRM container function for kustomize and kpt: the default entrypoint, dynamo-render-krm,
#   reads a ResourceList on stdin and writes one on stdout.
#
# The image also carries a standalone kustomize, which the plugin runs when an Application's
# folder holds a kustomization (built from source by `go install`, which checks the module
# against the Go checksum database; the CI installs its kustomize the same way).
#
# Build:  docker build -t dynamo-render:0.1.0 .
# Multi-arch (amd64 and arm64 nodes; kustomize is cross-compiled on the build host):
#         docker buildx build --platform linux/amd64,linux/arm64 -t registry.example.com/dynamo-render:0.1.0 --push .
# Use:    docker run --rm -i dynamo-render:0.1.0 < resource-list.yaml
#         docker run --rm -v "$PWD:/work" -w /work --entrypoint dynamo-render dynamo-render:0.1.0 render deploy/

# The base images, pinned by tag. To pin them by digest too (a tag can be moved; a digest
# cannot), append the digest of each tag's multi-platform index, keeping the tag for readers:
#   ARG PYTHON_IMAGE=python:3.12.11-slim-bookworm@sha256:<digest>
# The digest is the one the registry gives for the tag (docs/argocd.md, "Pinning the base
# images"): `docker buildx imagetools inspect python:3.12.11-slim-bookworm` prints it as
# "Digest:". Move the tag and the digest together, and rebuild. Or pin one build only:
#   docker build --build-arg PYTHON_IMAGE=python:3.12.11-slim-bookworm@sha256:<digest> .
ARG PYTHON_IMAGE=python:3.12.11-slim-bookworm
ARG GO_IMAGE=golang:1.24.11-bookworm
# The kustomize Argo CD v3.5.1 bundles (its hack/tool-versions.sh, kustomize5_version), so that an
# app folder builds under the plugin as under Argo CD's own kustomize; move it with the Argo CD pin.
ARG KUSTOMIZE_VERSION=v5.8.1

# Build stage: install the package from this repository into /opt/dynamo-render.
FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY renderer/ renderer/
COPY plugin/ plugin/
COPY scripts/install-image.sh scripts/
RUN sh scripts/install-image.sh /src /opt/dynamo-render

# kustomize for the build platform's architecture or the target's (TARGETARCH, set by buildx).
FROM --platform=$BUILDPLATFORM ${GO_IMAGE} AS kustomize
ARG KUSTOMIZE_VERSION
ARG TARGETOS=linux
ARG TARGETARCH=amd64
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go install sigs.k8s.io/kustomize/kustomize/v5@${KUSTOMIZE_VERSION} \
    && find /go/bin -name kustomize -type f -exec install -D {} /out/kustomize \;

# Final stage: the same base, the virtualenv and the plugin configuration; no build tools.
FROM ${PYTHON_IMAGE}
LABEL org.opencontainers.image.title="dynamo-render" \
      org.opencontainers.image.description="Render NVIDIA Dynamo custom resources offline: Argo CD plugin and KRM function" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY --from=build /opt/dynamo-render /opt/dynamo-render
COPY --from=kustomize /out/kustomize /opt/dynamo-render/bin/kustomize
COPY argocd/plugin.yaml /home/argocd/cmp-server/config/plugin.yaml
ENV PATH=/opt/dynamo-render/bin:$PATH \
    HOME=/tmp \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
WORKDIR /tmp
# Argo CD requires uid 999 for plugin sidecars; kustomize and kpt run functions as nobody.
USER 999:999
ENTRYPOINT ["dynamo-render-krm"]
