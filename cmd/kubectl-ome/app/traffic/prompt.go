package traffic

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// maxAnswer is the longest answer read; anything longer is a no.
const maxAnswer = 16

// confirm asks on stderr and reads one line from a terminal. Without a terminal there is
// nobody to ask, so the action is refused and --yes is the way to run it unattended.
func confirm(ctx context.Context, in io.Reader, errOut io.Writer) error {
	f, ok := in.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return errNotConfirmed
	}
	fmt.Fprint(errOut, "Confirm this exact action? [y/N] ")
	answer := make(chan string, 1)
	go func() {
		line, err := bufio.NewReaderSize(in, 64).ReadString('\n')
		if err != nil && line == "" {
			close(answer) // Ctrl-D
			return
		}
		answer <- line
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(errOut)
		return ctx.Err()
	case line, ok := <-answer:
		if !ok || !accepted(line) {
			return errNotConfirmed
		}
		return nil
	}
}

// accepted is y or yes in any case, and nothing longer than maxAnswer.
func accepted(line string) bool {
	line = strings.TrimRight(line, "\r\n")
	if len(line) > maxAnswer {
		return false
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}
