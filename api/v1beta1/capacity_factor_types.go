package v1beta1

import "encoding/json"

// MaxCapacityFactor is the largest capacity factor the API server accepts: a cluster worth
// more than a thousand times its replicas is a typo, and a bound keeps the weight arithmetic
// on numbers it was written for.
const MaxCapacityFactor = 1000

// CapacityFactorPattern is what a capacity factor written as a string must match: a decimal
// number with an optional SI suffix or an exponent of at most two digits. It is a subset of
// what resource.ParseQuantity reads, and the API server checks it (with MaxLength) before
// any CEL rule parses the value, so that no stored factor can make a decoder fail, wrap or
// hang. It has no backslashes so that it reads the same in a CEL string.
const CapacityFactorPattern = `^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]{1,2})?$`

// CapacityFactorMaxLength bounds a factor written as a string.
const CapacityFactorMaxLength = 32

// The Go type keeps a factor's text and the routing reconciler parses it for the one
// service that carries it (trafficmap.ParseCapacityFactor): an object stored under an older,
// looser schema must not make a typed list of every service fail.

// CapacityFactor is a capacity factor: an integer such as 2, or a string of at most 32
// characters such as "1.5" or "500m" whose exponent has at most two digits. It must be
// above 0 and at most 1000.
//
// +kubebuilder:validation:XIntOrString
// +kubebuilder:validation:Type=""
// +kubebuilder:validation:MaxLength=32
// +kubebuilder:validation:Pattern=`^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]{1,2})?$`
// +kubebuilder:validation:XValidation:rule="type(self) == int ? self > 0 : (size(self) > 32 || !self.matches('^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]{1,2})?$') || quantity(self).isGreaterThan(quantity('0')))",message="a capacity factor must be positive"
// +kubebuilder:validation:XValidation:rule="type(self) == int ? self <= 1000 : (size(self) > 32 || !self.matches('^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]{1,2})?$') || !quantity(self).isGreaterThan(quantity('1000')))",message="a capacity factor must be at most 1000"
type CapacityFactor string

// UnmarshalJSON keeps whatever the API server stored: a string's text, or any other JSON
// value's own bytes (an integer such as 2 reads as "2"). It never fails, so one hostile
// factor refuses one service instead of the whole cache.
func (f *CapacityFactor) UnmarshalJSON(b []byte) error {
	var s string
	if len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &s) == nil {
		*f = CapacityFactor(s)
		return nil
	}
	*f = CapacityFactor(b)
	return nil
}

// String returns the factor as written.
func (f CapacityFactor) String() string { return string(f) }
