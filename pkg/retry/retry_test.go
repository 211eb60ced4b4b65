package retry

import (
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func dur(s string) *metav1.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return &metav1.Duration{Duration: d}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		r    *omev1beta1.PublisherRetry
		t    *omev1beta1.PublisherTimeouts
		want []string // one substring per error, in order; none when valid
	}{
		{name: "nothing"},
		{name: "disabled", r: &omev1beta1.PublisherRetry{Disabled: true}},
		{name: "every field", r: &omev1beta1.PublisherRetry{Attempts: ptr.To[int32](2), Codes: []omev1beta1.HTTPStatus{502, 503},
			ConnectionFailures: ptr.To(true), Backoff: dur("100ms"), PerTryTimeout: dur("30s"), BudgetPercent: ptr.To[int32](20)},
			t: &omev1beta1.PublisherTimeouts{Request: dur("30s")}},
		{name: "disabled with attempts", r: &omev1beta1.PublisherRetry{Disabled: true, Attempts: ptr.To[int32](1)},
			want: []string{"spec.routing.publisher.retry: " + MsgDisabledCombined}},
		{name: "no attempts", r: &omev1beta1.PublisherRetry{Codes: []omev1beta1.HTTPStatus{503}},
			want: []string{"spec.routing.publisher.retry: " + MsgAttemptsRequired}},
		{name: "nothing retried", r: &omev1beta1.PublisherRetry{Attempts: ptr.To[int32](1), ConnectionFailures: ptr.To(false)},
			want: []string{"spec.routing.publisher.retry: " + MsgNothingRetried}},
		{name: "a 4xx and a duplicate", r: &omev1beta1.PublisherRetry{Attempts: ptr.To[int32](1), Codes: []omev1beta1.HTTPStatus{503, 429, 503}},
			want: []string{"spec.routing.publisher.retry.codes: " + MsgCodes5xx + ", got 429", "spec.routing.publisher.retry.codes lists 503 more than once"}},
		{name: "bounds", r: &omev1beta1.PublisherRetry{Attempts: ptr.To[int32](6), BudgetPercent: ptr.To[int32](0), Backoff: dur("0s"), PerTryTimeout: dur("-1s")},
			want: []string{"retry.attempts must be between 1 and 5, got 6", "retry.backoff: " + MsgBackoffPositive + ", got 0s",
				"retry.perTryTimeout: " + MsgPerTryPositive + ", got -1s", "retry.budgetPercent must be between 1 and 100, got 0"}},
		{name: "timeouts without request", t: &omev1beta1.PublisherTimeouts{},
			want: []string{"spec.routing.publisher.timeouts: " + MsgRequestRequired}},
		{name: "per try over the request", r: &omev1beta1.PublisherRetry{Attempts: ptr.To[int32](1), PerTryTimeout: dur("2m")},
			t:    &omev1beta1.PublisherTimeouts{Request: dur("1m")},
			want: []string{"spec.routing.publisher: " + MsgPerTryOverBudget + " (2m0s over 1m0s)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := Validate(c.r, c.t, ServicePath)
			if len(errs) != len(c.want) {
				t.Fatalf("got %d errors %v, want %d: %q", len(errs), errs, len(c.want), c.want)
			}
			for i, e := range errs {
				if !strings.Contains(e.Error(), c.want[i]) {
					t.Errorf("error %d: %q does not say %q", i, e, c.want[i])
				}
			}
		})
	}
}

func TestResolve(t *testing.T) {
	install := &omev1beta1.PublisherRetry{Attempts: ptr.To[int32](2), Codes: []omev1beta1.HTTPStatus{503, 502, 503}, BudgetPercent: ptr.To[int32](20)}
	own := &omev1beta1.PublisherRetry{Attempts: ptr.To[int32](1), ConnectionFailures: ptr.To(false), Codes: []omev1beta1.HTTPStatus{500},
		PerTryTimeout: dur("10s"), Backoff: dur("50ms")}
	cases := []struct {
		name        string
		svc, inst   *omev1beta1.PublisherRetry
		svcT, instT *omev1beta1.PublisherTimeouts
		want        Policy
	}{
		{name: "none", want: Policy{}},
		{name: "the installation's, codes sorted and unique", inst: install,
			want: Policy{Retry: &Retry{Attempts: 2, Codes: []int32{502, 503}, ConnectionFailures: true, BudgetPercent: 20}}},
		{name: "the service's replaces it whole", svc: own, inst: install,
			want: Policy{Retry: &Retry{Attempts: 1, Codes: []int32{500}, PerTryTimeout: 10 * time.Second, Backoff: 50 * time.Millisecond}}},
		{name: "disabled turns the installation's off", svc: &omev1beta1.PublisherRetry{Disabled: true}, inst: install, want: Policy{}},
		{name: "timeouts: the service's wins", svcT: &omev1beta1.PublisherTimeouts{Request: dur("1m")}, instT: &omev1beta1.PublisherTimeouts{Request: dur("5m")},
			want: Policy{Request: time.Minute}},
		{name: "timeouts: the installation's", instT: &omev1beta1.PublisherTimeouts{Request: dur("5m")}, want: Policy{Request: 5 * time.Minute}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Resolve(c.svc, c.inst, c.svcT, c.instT); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Resolve() = %+v (retry %+v), want %+v (retry %+v)", got, got.Retry, c.want, c.want.Retry)
			}
		})
	}
}
