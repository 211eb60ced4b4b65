package docs

import (
	"go/ast"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/ome-routing/operator/controllers"
	"github.com/ome-routing/operator/pkg/observer"
)

// The kinds of reason a page can name. A name may be of several kinds: the routing
// reconciler's AllHomesProbeFailed is an event reason and a Routable reason.
const (
	kindEvent     = "event reason"
	kindCondition = "condition reason"
	kindWeight    = "weight reason"
	kindExclusion = "exclusion reason"
	kindLeftOut   = "left-out reason"
	kindServing   = "serving state"
)

var reasonKinds = []string{kindEvent, kindCondition, kindWeight, kindExclusion, kindLeftOut, kindServing}

// apiReasons are api/v1beta1's reasons by kind: a weight reason is a constant of type
// WeightReason, an exclusion reason one of ExclusionReason, a left-out reason one of
// LeftOutReason, and a condition reason a
// constant named Reason... or of another type whose name ends in Reason.
func apiReasons(t *testing.T, src *sourceTree) map[string]map[string]bool {
	t.Helper()
	p := src.dir(t, "api/v1beta1")
	out := map[string]map[string]bool{kindCondition: {}, kindWeight: {}, kindExclusion: {}, kindLeftOut: {}, kindServing: {}}
	for name, value := range p.consts {
		switch typ := p.types[name]; {
		case typ == "WeightReason":
			out[kindWeight][value] = true
		case typ == "ExclusionReason":
			out[kindExclusion][value] = true
		case typ == "LeftOutReason":
			out[kindLeftOut][value] = true
		case typ == "ServingState":
			out[kindServing][value] = true
		case strings.HasPrefix(name, "Reason") || strings.HasSuffix(typ, "Reason"):
			out[kindCondition][value] = true
		}
	}
	for kind, least := range map[string]int{kindCondition: 20, kindWeight: 8, kindExclusion: 4, kindLeftOut: 3, kindServing: 7} {
		if len(out[kind]) < least {
			t.Fatalf("found only %d %ss in api/v1beta1: the constant pattern is broken", len(out[kind]), kind)
		}
	}
	return out
}

// eventReasons are the reasons of every event the operator records, with the types
// (Normal, Warning) each is recorded with. They are read from the reason argument of every
// Eventf call in the non-test code of controllers/, pkg/ and cmd/: a constant, or a
// parameter of the function that holds the call, whose callers then pass the constants
// (the publisher's fail(..., reason, ...) passes a Published reason). An Eventf inside a
// method named Eventf is a wrapper passing its own caller's reason on, and is skipped; any
// other reason this cannot name fails the test, so that a new event cannot be recorded
// with a reason the docs never see.
func eventReasons(t *testing.T, src *sourceTree) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	for _, dir := range src.goDirs(t, "controllers", "pkg", "cmd") {
		p := src.dir(t, dir)
		funcCalls(p, func(file *ast.File, holder *ast.FuncDecl, call *ast.CallExpr) {
			if calledName(call) != "Eventf" || len(call.Args) < 5 {
				return
			}
			if holder != nil && holder.Name.Name == "Eventf" {
				return
			}
			typ := eventType(t, src, p, file, call.Args[2])
			for _, reason := range src.resolveReason(t, p, file, holder, call.Args[3], 0) {
				if out[reason] == nil {
					out[reason] = map[string]bool{}
				}
				out[reason][typ] = true
			}
		})
	}
	if len(out) < 15 {
		t.Fatalf("found only %d event reasons in the Eventf calls: the call pattern is broken", len(out))
	}
	return out
}

// eventType is the type an Eventf call records: corev1.EventTypeNormal or Warning, or a
// constant.
func eventType(t *testing.T, src *sourceTree, p *goPackage, file *ast.File, e ast.Expr) string {
	t.Helper()
	if sel, ok := e.(*ast.SelectorExpr); ok {
		switch sel.Sel.Name {
		case "EventTypeNormal":
			return "Normal"
		case "EventTypeWarning":
			return "Warning"
		}
	}
	if v, ok := src.constValue(t, p, file, e); ok {
		return v
	}
	t.Errorf("%s: the event type is neither corev1.EventTypeNormal, corev1.EventTypeWarning nor a constant", src.position(p, e))
	return "?"
}

// resolveReason is the constant e names, or, for a parameter of holder, the constants
// every call of holder in the package passes for it.
func (s *sourceTree) resolveReason(t *testing.T, p *goPackage, file *ast.File, holder *ast.FuncDecl, e ast.Expr, depth int) []string {
	t.Helper()
	// A typed reason converted for the recorder, string(reason), is the reason itself.
	if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 1 {
		if fn, ok := call.Fun.(*ast.Ident); ok && fn.Name == "string" {
			e = call.Args[0]
		}
	}
	if v, ok := s.constValue(t, p, file, e); ok {
		return []string{v}
	}
	id, ok := e.(*ast.Ident)
	idx := -1
	if ok {
		idx = paramIndex(holder, id.Name)
	}
	if idx < 0 || depth > 3 {
		t.Errorf("%s: the event's reason is neither a constant nor a parameter whose callers pass constants; name it with a constant", s.position(p, e))
		return nil
	}
	var out []string
	funcCalls(p, func(f *ast.File, h *ast.FuncDecl, call *ast.CallExpr) {
		if calledName(call) == holder.Name.Name && len(call.Args) > idx {
			out = append(out, s.resolveReason(t, p, f, h, call.Args[idx], depth+1)...)
		}
	})
	if len(out) == 0 {
		t.Errorf("%s: the event's reason is %s's parameter %s, and nothing in the package calls %s", s.position(p, e), holder.Name.Name, id.Name, holder.Name.Name)
	}
	return out
}

// metric is one metric the manager exports: its labels (variable and constant), and
// whether it is a histogram or a summary, whose series carry suffixes.
type metric struct {
	labels    map[string]bool
	histogram bool
	summary   bool
}

// recordingRegisterer keeps what is registered with it, so that the collectors the
// manager registers can be described without a registry.
type recordingRegisterer struct{ collectors []prometheus.Collector }

func (r *recordingRegisterer) Register(c prometheus.Collector) error {
	r.collectors = append(r.collectors, c)
	return nil
}

func (r *recordingRegisterer) MustRegister(cs ...prometheus.Collector) {
	r.collectors = append(r.collectors, cs...)
}

func (r *recordingRegisterer) Unregister(prometheus.Collector) bool { return false }

// exportedMetrics are the metrics the manager registers: the routing and member metrics
// (controllers.RegisterMetrics) and the observer's (observer.Metrics.Register), from their
// descriptors, and those registered in cmd/ (a main package, which a test cannot import),
// from the prometheus.New... calls in its source.
func exportedMetrics(t *testing.T, src *sourceTree) map[string]metric {
	t.Helper()
	rec := &recordingRegisterer{}
	if err := controllers.RegisterMetrics(rec); err != nil {
		t.Fatal(err)
	}
	if err := observer.NewMetrics().Register(rec); err != nil {
		t.Fatal(err)
	}
	out := map[string]metric{}
	for _, c := range rec.collectors {
		m := metric{}
		switch c := c.(type) {
		case *prometheus.HistogramVec:
			m.histogram = true
		case *prometheus.SummaryVec:
			m.summary = true
		case prometheus.Metric:
			var d dto.Metric
			if err := c.Write(&d); err != nil {
				t.Fatal(err)
			}
			m.histogram, m.summary = d.Histogram != nil, d.Summary != nil
		}
		for _, desc := range describe(c) {
			name, labels := descName(t, desc)
			m.labels = labels
			out[name] = m
		}
	}
	for name, m := range sourceMetrics(t, src, "cmd") {
		out[name] = m
	}
	if len(out) < 10 {
		t.Fatalf("found only %d metrics: the registration is broken", len(out))
	}
	return out
}

func describe(c prometheus.Collector) []*prometheus.Desc {
	ch := make(chan *prometheus.Desc)
	go func() { c.Describe(ch); close(ch) }()
	var out []*prometheus.Desc
	for d := range ch {
		out = append(out, d)
	}
	return out
}

// descName is a descriptor's name and label names. A Desc shows neither but through its
// String, so one series of it is made with as many (empty) label values as it takes, and
// gathered.
func descName(t *testing.T, desc *prometheus.Desc) (string, map[string]bool) {
	t.Helper()
	for n := 0; n <= 16; n++ {
		m, err := prometheus.NewConstMetric(desc, prometheus.UntypedValue, 0, make([]string, n)...)
		if err != nil {
			continue
		}
		reg := prometheus.NewRegistry()
		if err := reg.Register(constCollector{desc, m}); err != nil {
			t.Fatal(err)
		}
		families, err := reg.Gather()
		if err != nil || len(families) != 1 || len(families[0].Metric) != 1 {
			t.Fatalf("gathering %s: %v", desc, err)
		}
		labels := map[string]bool{}
		for _, lp := range families[0].Metric[0].Label {
			labels[lp.GetName()] = true
		}
		return families[0].GetName(), labels
	}
	t.Fatalf("no label count fits %s", desc)
	return "", nil
}

type constCollector struct {
	desc *prometheus.Desc
	m    prometheus.Metric
}

func (c constCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }
func (c constCollector) Collect(ch chan<- prometheus.Metric) { ch <- c.m }

// sourceMetrics are the metrics the prometheus.NewCounter/Gauge/Histogram/Summary(Vec)
// calls in the non-test code under dir create: the name from the options' Namespace,
// Subsystem and Name, the labels from ConstLabels and a Vec's label names.
func sourceMetrics(t *testing.T, src *sourceTree, dir string) map[string]metric {
	t.Helper()
	out := map[string]metric{}
	for _, d := range src.goDirs(t, dir) {
		p := src.dir(t, d)
		funcCalls(p, func(file *ast.File, _ *ast.FuncDecl, call *ast.CallExpr) {
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || len(call.Args) == 0 || !strings.HasPrefix(sel.Sel.Name, "New") {
				return
			}
			if x, ok := sel.X.(*ast.Ident); !ok || importPath(file, x.Name) != "github.com/prometheus/client_golang/prometheus" {
				return
			}
			kind := strings.TrimSuffix(strings.TrimPrefix(sel.Sel.Name, "New"), "Vec")
			if kind != "Counter" && kind != "Gauge" && kind != "Histogram" && kind != "Summary" {
				return
			}
			opts := call.Args[0]
			if u, ok := opts.(*ast.UnaryExpr); ok {
				opts = u.X
			}
			lit, ok := opts.(*ast.CompositeLit)
			if !ok {
				t.Errorf("%s: the metric's options are not a literal; name them in one", src.position(p, call))
				return
			}
			parts := map[string]string{}
			m := metric{labels: map[string]bool{}, histogram: kind == "Histogram", summary: kind == "Summary"}
			for _, el := range lit.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				key, _ := kv.Key.(*ast.Ident)
				if !ok || key == nil {
					continue
				}
				switch key.Name {
				case "Namespace", "Subsystem", "Name":
					v, ok := src.constValue(t, p, file, kv.Value)
					if !ok {
						t.Errorf("%s: the metric's %s is not a constant", src.position(p, kv), key.Name)
					}
					parts[key.Name] = v
				case "ConstLabels":
					labels, _ := kv.Value.(*ast.CompositeLit)
					if labels == nil {
						t.Errorf("%s: the metric's ConstLabels are not a literal", src.position(p, kv))
						continue
					}
					for _, l := range labels.Elts {
						lkv, _ := l.(*ast.KeyValueExpr)
						if lkv == nil {
							continue
						}
						if name, ok := src.constValue(t, p, file, lkv.Key); ok {
							m.labels[name] = true
						}
					}
				}
			}
			if strings.HasSuffix(sel.Sel.Name, "Vec") && len(call.Args) > 1 {
				names, _ := call.Args[1].(*ast.CompositeLit)
				if names == nil {
					t.Errorf("%s: the metric's label names are not a literal", src.position(p, call))
					return
				}
				for _, n := range names.Elts {
					if v, ok := src.constValue(t, p, file, n); ok {
						m.labels[v] = true
					}
				}
			}
			out[prometheus.BuildFQName(parts["Namespace"], parts["Subsystem"], parts["Name"])] = m
		})
	}
	return out
}

func sortedLabels(labels map[string]bool) string {
	names := make([]string, 0, len(labels))
	for l := range labels {
		names = append(names, l)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}
