package util

// ExitConflict is the exit code of a guarded patch that the API server rejected because
// the object changed after the preview.
const ExitConflict = 3

// ExitError carries an exit code other than 1.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }
