// Package config loads the installation's multi-cluster settings (the JSON the chart
// renders into the inferenceservice-config ConfigMap) strictly, and validates them with
// messages that name each bad setting by its path.
package config
