// Command promql-metrics parses PromQL expressions with Prometheus's own parser and names the
// metrics each one selects. It reads a JSON array of expressions on stdin and writes a JSON
// array of {"expr", "metrics", "error"}, one per expression, in order. test/integration/monitoring
// runs it (make test passes its path in $PROMQL) on every expression the chart ships.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

type result struct {
	Expr    string   `json:"expr"`
	Metrics []string `json:"metrics"`
	Error   string   `json:"error,omitempty"`
}

func main() {
	var exprs []string
	if err := json.NewDecoder(os.Stdin).Decode(&exprs); err != nil {
		fmt.Fprintln(os.Stderr, "promql-metrics: read a JSON array of expressions:", err)
		os.Exit(2)
	}
	p := parser.NewParser(parser.Options{})
	out := make([]result, 0, len(exprs))
	for _, e := range exprs {
		r := result{Expr: e, Metrics: []string{}}
		expr, err := p.ParseExpr(e)
		if err != nil {
			r.Error = err.Error()
		} else {
			r.Metrics = metricNames(expr)
		}
		out = append(out, r)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "promql-metrics:", err)
		os.Exit(1)
	}
}

// metricNames are the metric names that the expression's selectors name, sorted. A selector
// without an equality on __name__ (such as {job="x"} or a regexp) is reported as "" so that
// the caller can refuse it: it cannot be checked against what a manager exports.
func metricNames(expr parser.Expr) []string {
	seen := map[string]bool{}
	for _, matchers := range parser.ExtractSelectors(expr) {
		name := ""
		for _, m := range matchers {
			if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
				name = m.Value
			}
		}
		seen[name] = true
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
