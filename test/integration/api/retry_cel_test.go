package api

import (
	"context"
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/retry"
)

// retryCase is a spec.routing.publisher block, the API server's verdict (a substring of
// its refusal, empty when it accepts) and pkg/retry's (the same message after the field's
// path, where a CEL rule decides; empty when it accepts).
type retryCase struct {
	Name, JSON, API, GoErr string
}

const publisherPath = retry.ServicePath

var retryCases = []retryCase{
	{"a retry with every field", `{"retry": {"attempts": 2, "codes": [502, 503], "connectionFailures": true, "backoff": "100ms", "perTryTimeout": "30s", "budgetPercent": 20}, "timeouts": {"request": "5m"}}`, "", ""},
	{"disabled", `{"retry": {"disabled": true}}`, "", ""},
	{"connection failures only", `{"retry": {"attempts": 1}}`, "", ""},
	{"disabled with attempts", `{"retry": {"disabled": true, "attempts": 1}}`,
		retry.MsgDisabledCombined, publisherPath + ".retry: " + retry.MsgDisabledCombined},
	{"no attempts", `{"retry": {"codes": [503]}}`,
		retry.MsgAttemptsRequired, publisherPath + ".retry: " + retry.MsgAttemptsRequired},
	{"a retry of nothing", `{"retry": {"attempts": 1, "connectionFailures": false}}`,
		retry.MsgNothingRetried, publisherPath + ".retry: " + retry.MsgNothingRetried},
	{"a 4xx", `{"retry": {"attempts": 1, "codes": [429]}}`,
		retry.MsgCodes5xx, publisherPath + ".retry.codes: " + retry.MsgCodes5xx},
	{"a zero backoff", `{"retry": {"attempts": 1, "backoff": "0s"}}`,
		retry.MsgBackoffPositive, publisherPath + ".retry.backoff: " + retry.MsgBackoffPositive},
	{"a zero perTryTimeout", `{"retry": {"attempts": 1, "perTryTimeout": "0s"}}`,
		retry.MsgPerTryPositive, publisherPath + ".retry.perTryTimeout: " + retry.MsgPerTryPositive},
	{"timeouts without request", `{"timeouts": {}}`,
		retry.MsgRequestRequired, publisherPath + ".timeouts: " + retry.MsgRequestRequired},
	{"a zero request timeout", `{"timeouts": {"request": "0s"}}`,
		retry.MsgRequestPositive, publisherPath + ".timeouts.request: " + retry.MsgRequestPositive},
	{"perTryTimeout over the request timeout", `{"retry": {"attempts": 1, "perTryTimeout": "2m"}, "timeouts": {"request": "1m"}}`,
		retry.MsgPerTryOverBudget, publisherPath + ": " + retry.MsgPerTryOverBudget},
	// The schema's bounds; Go says them in its own words.
	{"six attempts", `{"retry": {"attempts": 6}}`, "should be less than or equal to 5", "attempts must be between 1 and 5"},
	{"a budget of 101%", `{"retry": {"attempts": 1, "budgetPercent": 101}}`, "should be less than or equal to 100", "budgetPercent must be between 1 and 100"},
}

// retryMessages are the CEL messages on the retry and timeouts blocks and on the
// publisher block; a new rule needs a case.
var retryMessages = []string{
	retry.MsgDisabledCombined, retry.MsgAttemptsRequired, retry.MsgNothingRetried, retry.MsgCodes5xx,
	retry.MsgBackoffPositive, retry.MsgPerTryPositive, retry.MsgRequestRequired, retry.MsgRequestPositive,
	retry.MsgPerTryOverBudget,
	"publisher option keys must contain 1-128 characters and values must contain 1-4096 characters.",
}

var _ = Describe("spec.routing.publisher retry and timeouts admission", func() {
	BeforeEach(func(ctx context.Context) { ensureNamespace(ctx, celNamespace) })

	DescribeTable("on CREATE, and pkg/retry agrees",
		func(ctx context.Context, c retryCase) {
			isvc := isvcWithRouting(celNamespace, "publisher", c.JSON)
			expectRoutingVerdict(k8s.Create(ctx, isvc), "publisher", c.API, c.JSON, isvc)

			var block omev1beta1.RoutingPublisherSpec
			Expect(json.Unmarshal([]byte(c.JSON), &block)).To(Succeed())
			errs := retry.Validate(block.Retry, block.Timeouts, publisherPath)
			if c.GoErr == "" {
				Expect(errs).To(BeEmpty())
				return
			}
			Expect(errs).To(ContainElement(WithTransform(func(e error) bool { return strings.Contains(e.Error(), c.GoErr) }, BeTrue())),
				"pkg/retry says %v", errs)
		},
		caseEntries(retryCases, func(c retryCase) string { return c.Name }),
	)

	It("has a case for every CEL rule of the publisher block", func(ctx context.Context) {
		rules := servedRulesBelow(ctx, "inferenceservices.ome.io", "spec", "properties", "routing", "properties", "publisher")
		Expect(rules).To(ConsistOf(retryMessages))
		for _, rule := range rules {
			if strings.HasPrefix(rule, "publisher option") {
				continue // the options' rule has its cases in the publisher suite
			}
			Expect(retryCases).To(ContainElement(HaveField("API", rule)), "no case expects the message %q", rule)
		}
	})
})
