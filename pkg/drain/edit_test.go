package drain

import (
	"testing"
)

func TestAdd(t *testing.T) {
	o := Override{"maintenance-a", "worker-a", "planned <maintenance> & more"}
	tests := []struct {
		name    string
		value   string
		absent  bool
		want    string
		wantErr string
	}{
		{name: "no annotation", absent: true, want: `{"maintenance-a":{"cluster":"worker-a","reason":"planned <maintenance> & more"}}`},
		{name: "empty object keeps its spacing", value: "{ \n}", want: `{"maintenance-a":{"cluster":"worker-a","reason":"planned <maintenance> & more"}` + " \n}"},
		{
			name:  "others kept byte for byte",
			value: ` {"z" : { "reason":"r\u0041", "cluster":"worker-b" } }`,
			want:  ` {"z" : { "reason":"r\u0041", "cluster":"worker-b" },"maintenance-a":{"cluster":"worker-a","reason":"planned <maintenance> & more"} }`,
		},
		{name: "malformed", value: `{"a"`, wantErr: "read ome.io/traffic-drain: EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Add(tt.value, !tt.absent, o)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v\nwant %q", got, err, tt.want)
			}
			parsed, err := Parse(got, true)
			if err != nil {
				t.Fatalf("result does not parse: %v", err)
			}
			found := false
			for _, p := range parsed {
				found = found || p == o
			}
			if !found {
				t.Errorf("added override missing from %+v", parsed)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	const three = `{ "a":{"cluster":"x","reason":"r"} ,  "b" : {"cluster":"y","reason":"s"},"c":{"reason":"t","cluster":"z"}}`
	tests := []struct {
		name, value, id string
		want            string
		last            bool
		wantErr         string
	}{
		{name: "first", value: three, id: "a", want: `{ "b" : {"cluster":"y","reason":"s"},"c":{"reason":"t","cluster":"z"}}`},
		{name: "middle", value: three, id: "b", want: `{ "a":{"cluster":"x","reason":"r"},"c":{"reason":"t","cluster":"z"}}`},
		{name: "last", value: three, id: "c", want: `{ "a":{"cluster":"x","reason":"r"} ,  "b" : {"cluster":"y","reason":"s"}}`},
		{name: "the only one", value: `{"a":{"cluster":"x","reason":"r"}}`, id: "a", last: true},
		{name: "absent ID", value: three, id: "q", wantErr: `ome.io/traffic-drain has no override "q"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, last, err := Remove(tt.value, tt.id)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want || last != tt.last {
				t.Fatalf("got %q last=%v %v\nwant %q last=%v", got, last, err, tt.want, tt.last)
			}
			if !last {
				if _, err := Parse(got, true); err != nil {
					t.Fatalf("result does not parse: %v", err)
				}
			}
		})
	}
}
