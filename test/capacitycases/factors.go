package capacitycases

import "strings"

// FactorCase is one value of spec.routing.capacityFactors[worker-a], with the API server's
// verdict and the routing reconciler's (trafficmap.ParseCapacityFactor) on the same value:
// a value the API server refuses may still reach the reconciler, stored under an older
// schema, and must then be refused there, for that one service.
type FactorCase struct {
	// Name names the case in test output.
	Name string
	// JSON is the factor as it appears in the map.
	JSON string
	// APIMessage is empty when the API server accepts the factor; otherwise a substring of
	// the rejection.
	APIMessage string
	// ParseError is the reconciler's exact error for the factor, after the field's name
	// (`spec.routing.capacityFactors["worker-a"] `); empty when it is usable.
	ParseError string
	// Canonical is the factor as the TrafficMap records it, when it is usable: the
	// Quantity's own form, which keeps some strings as written.
	Canonical string
}

// Messages of the CEL rules on a capacity factor, as the API server prints them.
const (
	MsgFactorPositive = "a capacity factor must be positive"
	MsgFactorAtMost   = "a capacity factor must be at most 1000"
)

// FactorMessages are the messages above.
var FactorMessages = []string{MsgFactorPositive, MsgFactorAtMost}

// The API server's wording for the factor's pattern and length.
const (
	msgFactorPattern = "should match '^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]{1,2})?$'"
	msgFactorLength  = "may not be more than 32 bytes"
)

// formatError is the reconciler's error for a factor the pattern refuses.
func formatError(quoted string) string {
	return `must be a number of at most 32 characters such as "2", "1.5" or "500m" (an exponent has at most two digits), got ` + quoted
}

// FactorCases is the shared table.
var FactorCases = []FactorCase{
	// Accepted, and usable.
	{Name: "an integer", JSON: `2`, Canonical: "2"},
	{Name: "a whole number as a string", JSON: `"2"`, Canonical: "2"},
	{Name: "a decimal", JSON: `"1.5"`, Canonical: "1500m"},
	{Name: "milli", JSON: `"500m"`, Canonical: "500m"},
	{Name: "finer than a thousandth", JSON: `"0.0005"`, Canonical: "500u"},
	{Name: "a leading dot", JSON: `".5"`, Canonical: "500m"},
	{Name: "a trailing dot", JSON: `"5."`, Canonical: "5."},
	{Name: "a plus sign", JSON: `"+3"`, Canonical: "+3"},
	{Name: "a two-digit negative exponent", JSON: `"1e-99"`, Canonical: "1e-9"},
	{Name: "the bound as an integer", JSON: `1000`, Canonical: "1k"},
	{Name: "the bound as a string", JSON: `"1000"`, Canonical: "1k"},
	{Name: "the bound with a suffix", JSON: `"1k"`, Canonical: "1k"},
	{Name: "the bound with an exponent", JSON: `"1e3"`, Canonical: "1e3"},
	{Name: "32 characters", JSON: `"` + strings.Repeat("0", 31) + `1"`, Canonical: strings.Repeat("0", 31) + "1"},

	// Refused for the value.
	{Name: "zero as an integer", JSON: `0`, APIMessage: MsgFactorPositive, ParseError: `must be positive, got "0"`},
	{Name: "zero", JSON: `"0"`, APIMessage: MsgFactorPositive, ParseError: `must be positive, got "0"`},
	{Name: "zero with a decimal point", JSON: `"0.0"`, APIMessage: MsgFactorPositive, ParseError: `must be positive, got "0"`},
	{Name: "a negative integer", JSON: `-1`, APIMessage: MsgFactorPositive, ParseError: `must be positive, got "-1"`},
	{Name: "negative milli", JSON: `"-500m"`, APIMessage: MsgFactorPositive, ParseError: `must be positive, got "-500m"`},
	{Name: "just above the bound as an integer", JSON: `1001`, APIMessage: MsgFactorAtMost, ParseError: `must be at most 1000, got "1001"`},
	{Name: "a binary kilo", JSON: `"1Ki"`, APIMessage: MsgFactorAtMost, ParseError: `must be at most 1000, got "1Ki"`},
	{Name: "a two-digit exponent", JSON: `"1e99"`, APIMessage: MsgFactorAtMost, ParseError: `must be at most 1000, got "1e99"`},
	{Name: "exa", JSON: `"1E"`, APIMessage: MsgFactorAtMost, ParseError: `must be at most 1000, got "1E"`},
	{Name: "an integer past int64", JSON: `99999999999999999999`, APIMessage: `must be of type integer,string: "number"`,
		ParseError: `must be at most 1000, got "99999999999999999999"`},

	// Refused for the form, before anything parses it.
	{Name: "a fractional exponent", JSON: `"1e1.5"`, APIMessage: msgFactorPattern, ParseError: formatError(`"1e1.5"`)},
	{Name: "an exponent past int64", JSON: `"1e9999999999"`, APIMessage: msgFactorPattern, ParseError: formatError(`"1e9999999999"`)},
	{Name: "an exponent the parser hangs on", JSON: `"1e999999999999"`, APIMessage: msgFactorPattern, ParseError: formatError(`"1e999999999999"`)},
	{Name: "a six-digit exponent", JSON: `"1e999999"`, APIMessage: msgFactorPattern, ParseError: formatError(`"1e999999"`)},
	{Name: "a three-digit exponent", JSON: `"1e100"`, APIMessage: msgFactorPattern, ParseError: formatError(`"1e100"`)},
	{Name: "an empty string", JSON: `""`, APIMessage: msgFactorPattern, ParseError: formatError(`""`)},
	{Name: "a word", JSON: `"two"`, APIMessage: msgFactorPattern, ParseError: formatError(`"two"`)},
	{Name: "a space", JSON: `" 2"`, APIMessage: msgFactorPattern, ParseError: formatError(`" 2"`)},
	{Name: "33 characters", JSON: `"` + strings.Repeat("0", 32) + `1"`, APIMessage: msgFactorLength,
		ParseError: formatError(`"` + strings.Repeat("0", 32) + `1"`)},
}
