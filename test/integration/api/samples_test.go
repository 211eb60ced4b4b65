package api

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/ome-routing/operator/internal/envfleet"
)

// The quickstart's manifests (config/samples) are what the API server accepts, CEL rules
// included, and the member-side ClusterRole grants exactly what the suites give a member's
// user: no more, no less.
var _ = Describe("The samples in config/samples", func() {
	samples := filepath.Join(envfleet.RepoRoot(), "config", "samples")

	It("pass the API server's admission, CEL rules included", func(ctx context.Context) {
		for _, ns := range []string{"qwen3-0-6b", "ome", "ome-routing-member"} {
			ensureNamespace(ctx, ns)
		}
		for _, f := range []string{"inferenceservice.yaml", "inferenceservice-failover.yaml", "workloadcluster.yaml", "workloadcluster-clusterprofile.yaml", "member-rbac.yaml"} {
			out := mustShell(ctx, "kubectl apply --dry-run=server -f "+filepath.Join(samples, f))
			Expect(out).To(ContainSubstring("(server dry run)"), f)
		}
	})

	It("grant a member's user the rights the suites give it", func() {
		f, err := os.Open(filepath.Join(samples, "member-rbac.yaml"))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(f.Close)
		reader := utilyaml.NewYAMLReader(bufio.NewReader(f))
		var roles []rbacv1.ClusterRole
		for {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			Expect(err).NotTo(HaveOccurred())
			var kind struct{ Kind string }
			Expect(yaml.Unmarshal(doc, &kind)).To(Succeed())
			if kind.Kind == "ClusterRole" {
				var role rbacv1.ClusterRole
				Expect(yaml.Unmarshal(doc, &role)).To(Succeed())
				roles = append(roles, role)
			}
		}
		Expect(roles).To(HaveLen(1))
		Expect(roles[0].Rules).To(Equal(envfleet.MemberRules))
	})
})
