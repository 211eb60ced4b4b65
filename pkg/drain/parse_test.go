package drain

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		absent  bool
		want    []Override
		wantErr string
	}{
		{name: "absent annotation", absent: true},
		{name: "empty object", value: "{}"},
		{name: "empty object with spaces", value: " { } \n"},
		{
			name:  "the documented drain",
			value: `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`,
			want:  []Override{{"maintenance-a", "worker-a", "planned maintenance"}},
		},
		{
			name:  "sorted by ID, several on one cluster",
			value: `{"zeta":{"reason":"r2","cluster":"worker-a"}, "alpha":{"cluster":"worker-a","reason":"r1"},"mid":{"cluster":"worker-b","reason":"r3"}}`,
			want:  []Override{{"alpha", "worker-a", "r1"}, {"mid", "worker-b", "r3"}, {"zeta", "worker-a", "r2"}},
		},
		{name: "empty string", value: "", wantErr: "decode top-level object: EOF"},
		{name: "not JSON", value: "maintenance", wantErr: "decode top-level object: invalid character 'm' looking for beginning of value"},
		{name: "array", value: `[{"cluster":"a","reason":"b"}]`, wantErr: "top-level value must be a JSON object keyed by override ID"},
		{name: "string", value: `"x"`, wantErr: "top-level value must be a JSON object keyed by override ID"},
		{name: "null", value: `null`, wantErr: "top-level value must be a JSON object keyed by override ID"},
		{name: "unterminated object", value: `{"a":{"cluster":"c","reason":"r"}`, wantErr: "top-level value must end with a JSON object"},
		{name: "trailing object", value: `{} {}`, wantErr: "unexpected trailing JSON token {"},
		{name: "trailing string", value: `{}"x"`, wantErr: "unexpected trailing JSON token x"},
		{name: "trailing garbage", value: `{} x`, wantErr: "decode top-level object: invalid character 'x' looking for beginning of value"},
		{name: "empty ID", value: `{"":{"cluster":"c","reason":"r"}}`, wantErr: "override ID must be non-empty"},
		{name: "blank ID", value: `{"  ":{"cluster":"c","reason":"r"}}`, wantErr: "override ID must be non-empty"},
		{name: "padded ID", value: `{" a":{"cluster":"c","reason":"r"}}`, wantErr: "override ID must not have leading or trailing whitespace"},
		{name: "duplicate ID", value: `{"a":{"cluster":"c","reason":"r"},"a":{"cluster":"d","reason":"r"}}`, wantErr: `duplicate override ID "a"`},
		{name: "value not an object", value: `{"a":"worker-a"}`, wantErr: `override "a" must be a JSON object`},
		{name: "value an array", value: `{"a":["worker-a"]}`, wantErr: `override "a" must be a JSON object`},
		{name: "number field", value: `{"a":{"cluster":1,"reason":"r"}}`, wantErr: `override "a" field "cluster" must be a string: got number`},
		{name: "null field", value: `{"a":{"cluster":"c","reason":null}}`, wantErr: `override "a" field "reason" must be a string: got null`},
		{name: "object field", value: `{"a":{"cluster":{"name":"c"},"reason":"r"}}`, wantErr: `override "a" field "cluster" must be a string: got object`},
		{name: "duplicate field", value: `{"a":{"cluster":"c","cluster":"d","reason":"r"}}`, wantErr: `override "a" has duplicate field "cluster"`},
		{name: "unknown field", value: `{"a":{"cluster":"c","reason":"r","until":"friday"}}`, wantErr: `override "a" has unknown field "until"`},
		{name: "field names are case sensitive", value: `{"a":{"Cluster":"c","reason":"r"}}`, wantErr: `override "a" has unknown field "Cluster"`},
		{name: "missing cluster", value: `{"a":{"reason":"r"}}`, wantErr: `override "a" cluster must be non-empty`},
		{name: "empty cluster", value: `{"a":{"cluster":"","reason":"r"}}`, wantErr: `override "a" cluster must be non-empty`},
		{name: "missing reason", value: `{"a":{"cluster":"c"}}`, wantErr: `override "a" reason must be non-empty`},
		{name: "blank reason", value: `{"a":{"cluster":"c","reason":" "}}`, wantErr: `override "a" reason must be non-empty`},
		{name: "padded cluster", value: `{"a":{"cluster":"c ","reason":"r"}}`, wantErr: `override "a" cluster must not have leading or trailing whitespace`},
		{name: "padded reason", value: `{"a":{"cluster":"c","reason":"\tr"}}`, wantErr: `override "a" reason must not have leading or trailing whitespace`},
		{name: "too many overrides", value: manyOverrides(MaxOverrides + 1), wantErr: "at most 64 overrides are allowed, got 65"},
		{name: "ID too long", value: `{"` + strings.Repeat("a", MaxIDBytes+1) + `":{"cluster":"c","reason":"r"}}`,
			wantErr: "override ID must be at most 253 bytes long, got 254"},
		{name: "ID at the limit", value: `{"` + strings.Repeat("a", MaxIDBytes) + `":{"cluster":"c","reason":"r"}}`,
			want: []Override{{ID: strings.Repeat("a", MaxIDBytes), Cluster: "c", Reason: "r"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.value, !tt.absent)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseAcceptsTheLimit(t *testing.T) {
	got, err := Parse(manyOverrides(MaxOverrides), true)
	if err != nil || len(got) != MaxOverrides {
		t.Fatalf("got %d overrides, error %v", len(got), err)
	}
}

func manyOverrides(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"id-%03d":{"cluster":"worker-a","reason":"r"}`, i)
	}
	return "{" + strings.Join(parts, ",") + "}"
}
