package util

import "errors"

// Dry-run modes.
const (
	DryRunNone   = "none"
	DryRunClient = "client"
	DryRunServer = "server"
)

// ErrDryRun refuses an unknown --dry-run value.
var ErrDryRun = errors.New("dry-run must be none, client or server")

// CheckDryRun accepts the three modes.
func CheckDryRun(d string) error {
	switch d {
	case DryRunNone, DryRunClient, DryRunServer:
		return nil
	}
	return ErrDryRun
}
