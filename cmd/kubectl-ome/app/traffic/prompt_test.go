package traffic

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

func TestAccepted(t *testing.T) {
	for _, a := range []string{"y\n", "Y\n", "yes\n", "YeS\r\n", " y \n"} {
		if !accepted(a) {
			t.Errorf("accepted(%q) = false", a)
		}
	}
	for _, a := range []string{"\n", "n\n", "no\n", "yess\n", "y" + strings.Repeat(" ", 16) + "\n", "ok\n"} {
		if accepted(a) {
			t.Errorf("accepted(%q) = true", a)
		}
	}
}

// TestConfirmWithoutTerminal: with no terminal to ask, the action is refused before any
// prompt is printed. (The prompt through a real terminal is tested in test/integration/cli.)
func TestConfirmWithoutTerminal(t *testing.T) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	for _, in := range []any{devnull, strings.NewReader("y\n")} {
		var errOut bytes.Buffer
		var err error
		switch r := in.(type) {
		case *os.File:
			err = confirm(context.Background(), r, &errOut)
		case *strings.Reader:
			err = confirm(context.Background(), r, &errOut)
		}
		if err == nil || err.Error() != "action not confirmed; noninteractive input requires --yes" {
			t.Errorf("%T: got %v", in, err)
		}
		if errOut.Len() != 0 {
			t.Errorf("%T: prompt printed without a terminal: %q", in, errOut.String())
		}
	}
}
