package probe

import (
	"fmt"
	"strings"
)

// wording phrases the rule failures of one probe source. The same rules hold everywhere,
// but two audiences grep for different words:
//
//   - a service's probe (ServicePath) speaks as the CRD's OpenAPI and CEL rules do, so the
//     operator and the API server report a bad spec alike;
//   - the installation's probe (InstallationPath) speaks as OME's manager does at
//     startup, so one grep finds the failure in either operator's log.
type wording struct {
	path string
	// ome is true for the installation's probe.
	ome bool
}

func wordingFor(path string) wording { return wording{path: path, ome: path == InstallationPath} }

// whenSet is OME's suffix for the installation's requirements, which apply only once a
// probe path is set.
func (w wording) whenSet() string { return " when " + w.path + ".path is set" }

// missing reports fields the probe leaves out.
func (w wording) missing(fields []string) []error {
	if !w.ome {
		return []error{fmt.Errorf("%s: an enabled probe must specify path, method, acceptStatuses, gateStatuses, "+
			"period, timeout, failureThreshold, successThreshold, and allFailedPolicy (missing: %s)",
			w.path, strings.Join(fields, ", "))}
	}
	var errs []error
	for _, f := range fields {
		switch f {
		case "period", "timeout", "failureThreshold", "successThreshold":
			errs = append(errs, w.notPositive(f))
		case "allFailedPolicy":
			errs = append(errs, w.allFailedPolicy(""))
		default:
			errs = append(errs, fmt.Errorf("%s.%s is required%s", w.path, f, w.whenSet()))
		}
	}
	return errs
}

func (w wording) pathSlash(p string) error {
	if w.ome {
		return fmt.Errorf("%s.path %q must begin with \"/\"", w.path, p)
	}
	return fmt.Errorf("%s.path must start with \"/\", got %q", w.path, p)
}

func (w wording) method(m string) error {
	if w.ome {
		return fmt.Errorf("%s.method %q must be GET, HEAD, or POST", w.path, m)
	}
	return fmt.Errorf("%s.method must be one of %s, got %q", w.path, strings.Join(validMethods, ", "), m)
}

// emptyStatuses is a status list with no item; field is acceptStatuses or gateStatuses.
func (w wording) emptyStatuses(field string) error {
	if w.ome {
		return fmt.Errorf("%s.%s is required%s", w.path, field, w.whenSet())
	}
	return fmt.Errorf("%s.%s must have at least 1 item", w.path, field)
}

func (w wording) statusRange(field string, i int, s int32) error {
	if w.ome {
		return fmt.Errorf("%s.%s contains invalid HTTP status %d", w.path, field, s)
	}
	return fmt.Errorf("%s.%s[%d] must be between %d and %d, got %d", w.path, field, i, MinStatus, MaxStatus, s)
}

// gateForbidden reports the forbidden statuses found in gateStatuses, in list order: one
// error for a service (as the CEL rule has it), one per status for the installation.
func (w wording) gateForbidden(found []int32) []error {
	if len(found) == 0 {
		return nil
	}
	if !w.ome {
		return []error{fmt.Errorf("%s.gateStatuses must not contain 401, 403, or 429", w.path)}
	}
	errs := make([]error, len(found))
	for i, s := range found {
		errs[i] = fmt.Errorf("%s.gateStatuses must not contain %d", w.path, s)
	}
	return errs
}

func (w wording) overlap(s int32) error {
	if w.ome {
		return fmt.Errorf("%s: status %d is in both acceptStatuses and gateStatuses", w.path, s)
	}
	return fmt.Errorf("%s status %d is in both acceptStatuses and gateStatuses", w.path, s)
}

// notPositive is a period or timeout (or, for the installation, a threshold) that is not
// above zero.
func (w wording) notPositive(field string) error {
	if w.ome {
		return fmt.Errorf("%s.%s must be positive%s", w.path, field, w.whenSet())
	}
	return fmt.Errorf("%s.%s must be positive", w.path, field)
}

func (w wording) threshold(field string, v int32) error {
	if w.ome {
		return w.notPositive(field)
	}
	return fmt.Errorf("%s.%s must be at least %d, got %d", w.path, field, MinThreshold, v)
}

func (w wording) allFailedPolicy(v string) error {
	if w.ome {
		return fmt.Errorf("%s.allFailedPolicy %q must be %q or %q%s", w.path, v, validAllFailed[0], validAllFailed[1], w.whenSet())
	}
	return fmt.Errorf("%s.allFailedPolicy must be %s or %s, got %q", w.path, validAllFailed[0], validAllFailed[1], v)
}
