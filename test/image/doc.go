// Package image tests the manager's container image that `make image` builds: it opens the
// OCI image layout with the standard library only (so the check does not share code with
// the builder), verifies every blob's digest, and checks the entrypoint, user, labels and
// the binary itself against the Dockerfile and the chart.
package image
