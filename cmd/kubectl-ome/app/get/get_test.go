package get

import (
	"bytes"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// TestRefusals covers the arguments refused before any request is made.
func TestRefusals(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, "a resource is required (valid resources: trafficmaps, trafficmap, tm, tmap)"},
		{[]string{"irep"}, `unknown resource "irep" (valid resources: trafficmaps, trafficmap, tm, tmap)`},
		{[]string{"TrafficMaps"}, `unknown resource "TrafficMaps" (valid resources: trafficmaps, trafficmap, tm, tmap)`},
		{[]string{"tm", "a", "b"}, "get takes a resource and at most one name (got 3 arguments)"},
		{[]string{"tm", "-o", "name"}, "output must be table, wide, json or yaml"},
		{[]string{"tm", "chat", "-A"}, "a trafficmap cannot be read by name across all namespaces; use -n NAMESPACE"},
		{[]string{"tm", "Chat"}, `invalid trafficmap name ("Chat" is not a DNS-1123 subdomain)`},
		{[]string{"tm", "--bogus"}, "invalid get flags; use --help (unknown flag: --bogus)"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		cmd := NewCommand(util.NewClientGetter(genericclioptions.NewConfigFlags(true)), genericiooptions.IOStreams{Out: &out, ErrOut: &errOut})
		cmd.SetArgs(c.args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		err := cmd.Execute()
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
		if out.Len() != 0 {
			t.Errorf("%v: stdout %q", c.args, out.String())
		}
	}
}

func TestCompleteResources(t *testing.T) {
	fn := complete(util.NewClientGetter(genericclioptions.NewConfigFlags(true)))
	got, _ := fn(nil, nil, "t")
	if len(got) != 4 {
		t.Errorf("completions of t: %v", got)
	}
	got, _ = fn(nil, nil, "tm")
	if len(got) != 2 || got[0] != "tm" || got[1] != "tmap" {
		t.Errorf("completions of tm: %v", got)
	}
	if got, _ = fn(nil, []string{"irep"}, ""); len(got) != 0 {
		t.Errorf("names after an unknown resource: %v", got)
	}
}
