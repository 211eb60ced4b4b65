package util

import "fmt"

// ExitConflict is the exit code of a guarded patch that the API server rejected because
// the object changed after the preview.
const ExitConflict = 3

// ExitError carries an exit code other than 1.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

// Explain adds detail to a documented error: the documented text stays whole at the start,
// which scripts match on, and the detail follows in parentheses. errors.Is still finds the
// documented error.
func Explain(documented error, format string, args ...any) error {
	return fmt.Errorf("%w (%s)", documented, fmt.Sprintf(format, args...))
}
