package util

import (
	"errors"

	"github.com/spf13/pflag"
)

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

// AddDryRunFlag registers --dry-run into p. A bare --dry-run means client, as it does for
// kubectl: nothing is sent.
func AddDryRunFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "dry-run", DryRunNone, "Dry-run mode: none, client or server")
	fs.Lookup("dry-run").NoOptDefVal = DryRunClient
}

// JoinDryRunValue rewrites "--dry-run MODE" into "--dry-run=MODE" when MODE is one of the
// three modes. A flag with a default for its bare form only takes a value written with
// "=", so without this `--dry-run server` would run a client dry run on a second service
// named "server"; with it, both spellings keep working. Arguments after "--" are left
// alone.
func JoinDryRunValue(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--dry-run" && i+1 < len(args) && CheckDryRun(args[i+1]) == nil {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}
