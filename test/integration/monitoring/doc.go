// Package monitoring checks the chart's monitoring objects against a running manager: it
// runs the manager binary against envtest API servers until it has probed and gated a
// workload cluster, scrapes its /metrics, and requires every PromQL expression in the
// chart's PrometheusRule and Grafana dashboard to parse with Prometheus's parser (through
// hack/promql) and to name only metrics that the manager exports.
package monitoring
