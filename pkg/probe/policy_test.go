package probe

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ome-routing/operator/api/v1beta1"
)

func TestSpecFromAPI(t *testing.T) {
	tests := []struct {
		name string
		in   *v1beta1.RoutingProbe
		want Spec
	}{
		{name: "nil", in: nil, want: Spec{}},
		{name: "disabled", in: &v1beta1.RoutingProbe{Disabled: true}, want: Spec{Disabled: true}},
		{
			name: "empty strings read as missing, empty lists as present",
			in:   &v1beta1.RoutingProbe{AcceptStatuses: []v1beta1.HTTPStatus{}},
			want: Spec{AcceptStatuses: []int32{}},
		},
		{
			name: "every field",
			in:   step1API(),
			want: Spec{
				Path:             ptr("/v1/models"),
				Method:           ptr("GET"),
				AcceptStatuses:   []int32{200},
				GateStatuses:     []int32{404, 500, 502, 503, 504},
				Period:           ptr(10 * time.Second),
				Timeout:          ptr(3 * time.Second),
				FailureThreshold: ptr[int32](3),
				SuccessThreshold: ptr[int32](2),
				AllFailedPolicy:  ptr("PreserveTraffic"),
			},
		},
		{
			name: "zero durations and thresholds stay present",
			in: &v1beta1.RoutingProbe{
				Period: &metav1.Duration{}, Timeout: &metav1.Duration{},
				FailureThreshold: ptr[int32](0), SuccessThreshold: ptr[int32](0),
			},
			want: Spec{
				Period: ptr(time.Duration(0)), Timeout: ptr(time.Duration(0)),
				FailureThreshold: ptr[int32](0), SuccessThreshold: ptr[int32](0),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SpecFromAPI(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("SpecFromAPI:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
