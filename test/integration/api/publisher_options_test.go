package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// optionsWith is spec.routing.publisher with the given options.
func optionsWith(options map[string]string) string {
	raw, err := json.Marshal(map[string]any{"options": options})
	Expect(err).NotTo(HaveOccurred())
	return string(raw)
}

// manyOptions are n options with short keys and values.
func manyOptions(n int) map[string]string {
	out := map[string]string{}
	for i := range n {
		out[fmt.Sprintf("k%d", i)] = "v"
	}
	return out
}

const optionsMessage = "publisher option keys must contain 1-128 characters and values must contain 1-4096 characters."

// spec.routing.publisher.options: OME's bounds, in its words. The built-in publisher
// refuses any option (InvalidOptions), which the publisher suite shows; the API server
// admits what OME's API admits.
var _ = Describe("spec.routing.publisher admission", func() {
	BeforeEach(func(ctx context.Context) { ensureNamespace(ctx, celNamespace) })

	DescribeTable("options",
		func(ctx context.Context, options map[string]string, message string) {
			sent := optionsWith(options)
			isvc := isvcWithRouting(celNamespace, "publisher", sent)
			expectRoutingVerdict(k8s.Create(ctx, isvc), "publisher", message, sent, isvc)
		},
		Entry("one option", map[string]string{"weightScale": "2"}, ""),
		Entry("32 options, keys of 128 and values of 4096 characters", func() map[string]string {
			out := manyOptions(31)
			out[strings.Repeat("k", 128)] = strings.Repeat("v", 4096)
			return out
		}(), ""),
		Entry("an empty value", map[string]string{"weightScale": ""}, optionsMessage),
		Entry("a key of 129 characters", map[string]string{strings.Repeat("k", 129): "v"}, optionsMessage),
		Entry("a value of 4097 characters", map[string]string{"k": strings.Repeat("v", 4097)}, optionsMessage),
		Entry("33 options", manyOptions(33), "must have at most 32 items"),
	)
})
