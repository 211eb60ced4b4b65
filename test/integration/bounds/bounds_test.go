package bounds

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("Every value the manager writes fits its schema", func() {
	for _, name := range driverNames() {
		It("writes "+name+" at its extremes and the API server takes every write", func(ctx context.Context) {
			d := drivers[name]
			now := time.Now().UTC()
			objects, err := d.drive(ctx, now)
			Expect(err).NotTo(HaveOccurred(), "driving %s", d.feeds)
			var docs []map[string]any
			for _, obj := range objects {
				Expect(write(ctx, obj)).To(Succeed(), "the API server refused a write fed by %s", d.feeds)
				read := obj.DeepCopyObject().(client.Object)
				Expect(apiServer.Client.Get(ctx, client.ObjectKeyFromObject(obj), read)).To(Succeed())
				doc, err := document(read)
				Expect(err).NotTo(HaveOccurred())
				docs = append(docs, doc)
			}
			// Each field the driver stands for must be in what it wrote: a case that leaves
			// its field out proves nothing about it.
			var absent []string
			for path, dn := range table {
				if dn == name && !slices.ContainsFunc(docs, func(doc map[string]any) bool { return present(doc, path) }) {
					absent = append(absent, path)
				}
			}
			slices.Sort(absent)
			Expect(absent).To(BeEmpty(), "fields the %s case names but never wrote", name)
		})
	}
})

func driverNames() []string {
	var names []string
	for n := range drivers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// write creates obj with its spec, then writes its status through the status subresource,
// as the manager's writers do.
func write(ctx context.Context, obj client.Object) error {
	status := obj.DeepCopyObject().(client.Object)
	if err := apiServer.Client.Create(ctx, obj); err != nil {
		return fmt.Errorf("create %T %s: %w", obj, obj.GetName(), err)
	}
	status.SetResourceVersion(obj.GetResourceVersion())
	status.SetUID(obj.GetUID())
	if err := apiServer.Client.Status().Update(ctx, status); err != nil {
		return fmt.Errorf("write the status of %T %s: %w", obj, obj.GetName(), err)
	}
	return nil
}

func kindName(obj client.Object) string {
	t := fmt.Sprintf("%T", obj)
	return t[strings.LastIndex(t, ".")+1:]
}

// present says whether doc holds a value at path, such as
// "TrafficMap.spec.entries[].passiveGate.count": in any item of a list, for a list with
// [] in the path.
func present(doc map[string]any, path string) bool {
	kind, rest, _ := strings.Cut(path, ".")
	if doc["kind"] != kind {
		return false
	}
	var walk func(v any, parts []string) bool
	walk = func(v any, parts []string) bool {
		if len(parts) == 0 {
			return v != nil
		}
		name, list := strings.CutSuffix(parts[0], "[]")
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		next, ok := m[name]
		if !ok {
			return false
		}
		if !list {
			return walk(next, parts[1:])
		}
		items, _ := next.([]any)
		return slices.ContainsFunc(items, func(item any) bool { return walk(item, parts[1:]) })
	}
	return walk(doc, strings.Split(rest, "."))
}
