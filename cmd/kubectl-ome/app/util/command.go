package util

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// FlagErrors keeps a command's documented flag refusal (such as "invalid traffic action
// flags; use --help") as the start of the message and adds pflag's own words in
// parentheses, so that the flag at fault is named: "unknown flag: --yess", "flag needs an
// argument: --id", `invalid argument "maybe" for "--yes" flag: ...`.
func FlagErrors(documented string) func(*cobra.Command, error) error {
	return func(_ *cobra.Command, err error) error {
		return fmt.Errorf("%s (%w)", documented, err)
	}
}

// Group makes cmd, a command that only holds subcommands, refuse an argument that is none
// of them: cobra would otherwise print the help and exit 0, so a typo such as
// `traffic drian` looked like success. Without an argument it prints the help.
func Group(cmd *cobra.Command) {
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return c.Help()
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
		if c.SuggestionsMinimumDistance <= 0 {
			c.SuggestionsMinimumDistance = 2 // cobra's own default, which it sets only on its path
		}
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(quoteAll(s), " or ") + "?"
		} else {
			msg += "."
		}
		return fmt.Errorf("%s See '%s --help'", msg, c.CommandPath())
	}
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}
