package dataplane

import (
	"context"
	"os/exec"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/internal/modelserver"
)

// The specs run in order on one service, each starting from the state the one before
// left: the servers are shared, since every cluster's backend is on the one backendPort.
var _ = Describe("Requests through haproxy", Ordered, func() {
	all := map[string]int32{"worker-a": 3, "worker-b": 2, "worker-c": 1}

	It("listen on loopback only: haproxy's and its controller's every listener is on 127.0.0.1", func() {
		addrs, err := haproxyingress.ListeningAddrs(env.Gateway.PIDs())
		Expect(err).NotTo(HaveOccurred())
		Expect(addrs).NotTo(BeEmpty())
		for _, a := range addrs {
			Expect(a).To(HavePrefix("127.0.0.1:"))
		}
	})

	It("split by the weights while every cluster passes", func(ctx context.Context) {
		expectRouting(ctx, all)
	})

	It("stop reaching a failing cluster once it is gated, and none fails on the way", func(ctx context.Context) {
		t := across(ctx, func() { set(modelserver.Unavailable, "worker-b") },
			map[string]int32{"worker-a": 3, "worker-b": 0, "worker-c": 1}, "worker-b")
		// worker-b answered 503 itself until its gate took it out of haproxy's rotation.
		Expect(t.Refused["worker-b"]).To(BeNumerically(">", 0), "worker-b failed some requests before its gate: %s", t)
	})

	It("return in the weights' ratio when the cluster recovers", func(ctx context.Context) {
		across(ctx, func() { set(modelserver.Serve, "worker-b") }, all)
	})

	It("keep flowing by the weights when every cluster fails under PreserveTraffic", func(ctx context.Context) {
		set(modelserver.Unavailable, workers...)
		Eventually(routable(ctx)).WithTimeout(timeout).WithPolling(interval).Should(Equal("True " + string(omev1beta1.TrafficMapReasonAllHomesProbeFailed)))
		t := expectRouting(ctx, all)
		// The clusters themselves answer (503), as they would without the operator: the
		// gateway is not the one failing the requests.
		Expect(t.Gateway).To(BeEmpty(), "the gateway answered itself: %s", t)
		Expect(t.Refused).To(HaveLen(len(workers)), "every cluster still gets requests: %s", t)
	})

	It("get haproxy's own 503 and reach no cluster when every cluster fails under Drain", func(ctx context.Context) {
		setPolicy(ctx, omev1beta1.AllFailedDrain)
		Eventually(routable(ctx)).WithTimeout(timeout).WithPolling(interval).Should(Equal("False " + string(omev1beta1.TrafficMapReasonAllHomesProbeFailed)))
		t := expectRouting(ctx, map[string]int32{"worker-a": 0, "worker-b": 0, "worker-c": 0})
		Expect(t.Gateway).To(Equal(map[int]int{503: batchSize}), "haproxy answers 503 itself, with no server left: %s", t)
	})

	It("come back once the clusters recover under Drain", func(ctx context.Context) {
		set(modelserver.Serve, workers...)
		expectRouting(ctx, all)
		setPolicy(ctx, omev1beta1.AllFailedPreserveTraffic)
		expectRouting(ctx, all)
	})

	It("never reach a cluster drained with kubectl ome traffic drain", func(ctx context.Context) {
		across(ctx, func() {
			plugin(ctx, "traffic", "drain", service.Name, "-n", service.Namespace, "--workload-cluster", "worker-a",
				"--id", "maintenance-a", "--reason", "planned maintenance", "--yes")
		}, map[string]int32{"worker-a": 0, "worker-b": 2, "worker-c": 1})
		across(ctx, func() {
			plugin(ctx, "traffic", "undrain", service.Name, "-n", service.Namespace, "--id", "maintenance-a", "--yes")
		}, all)
	})

	It("never reach a cluster whose capacity report says it can serve 0", func(ctx context.Context) {
		across(ctx, func() { env.Servers.Endpoints["worker-c"].SetServable(0) },
			map[string]int32{"worker-a": 3, "worker-b": 2, "worker-c": 0})
		across(ctx, func() { env.Servers.Endpoints["worker-c"].SetServable(ready["worker-c"]) }, all)
	})
})

// plugin runs the kubectl-ome binary against the control plane.
func plugin(ctx context.Context, args ...string) {
	GinkgoHelper()
	cmd := exec.CommandContext(ctx, env.Plugin, args...)
	cmd.Env = append(cmd.Environ(), "KUBECONFIG="+env.KubeConfig, "HOME="+GinkgoT().TempDir())
	out, err := cmd.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "kubectl-ome %s:\n%s", strings.Join(args, " "), out)
}
