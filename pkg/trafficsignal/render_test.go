package trafficsignal

import (
	"strings"
	"testing"
)

func TestRenderEscapesEveryName(t *testing.T) {
	spec := validSpec()
	spec.Requests = ptr(`x{ns="{{.Namespace}}",svc="{{.Service}}",c="{{.Cluster}}",r="{{.RouteNamespace}}/{{.Route}}",b=~"{{.BackendsRegex}}",f="{{index .Backends 0}}"}[{{.Window}}] @{{.BackendPosition}}`)
	s := mustValidate(t, spec)
	got, err := Render(s.Requests, Vars{
		Namespace: `a"}or vector(1)#`, Service: `s\`, Cluster: "c\n", Route: "r", RouteNamespace: "rn",
		Backends: []string{"b.x-1"}, BackendPosition: 2, Window: FormatWindow(30),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `x{ns="a\"}or vector(1)#",svc="s\\",c="c\n",r="rn/r",b=~"b\\.x-1",f="b.x-1"}[30s] @2`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if _, ok := outsideString(strings.ReplaceAll(got, `a\"}`, canary+`Namespace`)); ok {
		t.Fatal("the escaped name must stay inside its string")
	}
}

func TestRenderJoinsBackendsForARegex(t *testing.T) {
	s := mustValidate(t, validSpec())
	got, err := Render(s.Failures, Vars{Backends: []string{"a.b", "c+d"}, Window: "5s"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `backend=~"a\\.b|c\\+d"`; !strings.Contains(got, want) {
		t.Fatalf("%s does not contain %s", got, want)
	}
	if _, err := Render(s.Failures, Vars{}); err != nil {
		t.Fatalf("a template Validate accepted renders for any Vars: %v", err)
	}
}
