package traffic

import (
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestGuardedPatch(t *testing.T) {
	const guard = `{"op":"test","path":"/metadata/uid","value":"u-1"},{"op":"test","path":"/metadata/resourceVersion","value":"7"}`
	tests := []struct {
		name   string
		mutate func(*omev1beta1.InferenceService)
		value  string
		remove bool
		want   string
	}{
		{
			name:  "no annotations at all",
			value: `{"m":{}}`,
			want:  `[` + guard + `,{"op":"add","path":"/metadata/annotations","value":{"ome.io/traffic-drain":"{\"m\":{}}"}}]`,
		},
		{
			name:   "other annotations only",
			mutate: func(i *omev1beta1.InferenceService) { i.Annotations = map[string]string{"x": "y"} },
			value:  `{"m":{}}`,
			want:   `[` + guard + `,{"op":"add","path":"/metadata/annotations/ome.io~1traffic-drain","value":"{\"m\":{}}"}]`,
		},
		{
			name:   "replace",
			mutate: func(i *omev1beta1.InferenceService) { i.Annotations = map[string]string{"ome.io/traffic-drain": "{}"} },
			value:  `{"m":{}}`,
			want:   `[` + guard + `,{"op":"replace","path":"/metadata/annotations/ome.io~1traffic-drain","value":"{\"m\":{}}"}]`,
		},
		{
			name:   "remove the last",
			mutate: func(i *omev1beta1.InferenceService) { i.Annotations = map[string]string{"ome.io/traffic-drain": "{}"} },
			remove: true,
			want:   `[` + guard + `,{"op":"remove","path":"/metadata/annotations/ome.io~1traffic-drain"}]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := guardedPatch(plan{isvc: isvcWith(tt.mutate), value: tt.value, remove: tt.remove})
			if err != nil || string(got) != tt.want {
				t.Errorf("got %s %v\nwant %s", got, err, tt.want)
			}
		})
	}
}
