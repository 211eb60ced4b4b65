# The manager's image, for those who build with a container engine. `make image` builds the
# same image without one (hack/image): the same binary path, entrypoint, user and labels, which
# test/image checks against this file.

# Build a static binary: no cgo, so it needs no libc and runs on an empty base.
FROM golang:1.26 AS build
ARG TARGETOS=linux
ARG TARGETARCH=amd64
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
# Everything but what .dockerignore leaves out, so that a new package needs no edit here.
COPY . .
# The build the manager reports (--version, its startup log, ome_build_info), as make sets it:
# docker build --build-arg VERSION=v1.3.0 --build-arg REVISION=$(git rev-parse HEAD) .
ARG VERSION=v1.3.0
ARG REVISION=unknown
RUN CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} \
    go build -trimpath \
    -ldflags="-s -w -X github.com/ome-routing/operator/pkg/version.version=${VERSION} -X github.com/ome-routing/operator/pkg/version.revision=${REVISION}" \
    -o /manager ./cmd/manager

# An empty base, like make image's: the binary carries the public certificate authorities it
# trusts (cmd/manager/roots.go), and reads no other file of the image. The user is numeric
# (distroless's nonroot) because there is no /etc/passwd to name it in.
FROM scratch
ARG VERSION=v1.3.0
LABEL org.opencontainers.image.title="ome-manager" \
      org.opencontainers.image.description="OME routing operator: weighted traffic maps across workload clusters, with health probes" \
      org.opencontainers.image.source="https://github.com/ome-routing/operator" \
      org.opencontainers.image.version="${VERSION}"
COPY --from=build /manager /manager
USER 65532:65532
WORKDIR /
ENTRYPOINT ["/manager"]
