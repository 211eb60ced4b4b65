// Package failovercases is the one table of failover settings (spec.routing.failover and
// the chart's routing.failover) with two verdicts on each: the API server's CEL and schema,
// and pkg/failover's Go checks, which also guard settings no API server has checked.
package failovercases
