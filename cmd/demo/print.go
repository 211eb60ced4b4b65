package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Printer is the demo's narration. Everything the newcomer reads goes through it, in one
// format: a numbered heading per step, indented prose, and commands with their output
// as they would appear in a terminal.
type Printer struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
}

// NewPrinter narrates to w; times are shown from now.
func NewPrinter(w io.Writer) *Printer {
	return &Printer{w: w, start: time.Now()}
}

// Heading starts a part of the demo. The elapsed time lets the reader see how long each
// gate took to close or lift, which is the point of the story.
func (p *Printer) Heading(format string, args ...any) {
	p.printf("\n[%5.1fs] == %s\n", time.Since(p.start).Seconds(), fmt.Sprintf(format, args...))
}

// Say prints a line of explanation.
func (p *Printer) Say(format string, args ...any) {
	p.printf("    %s\n", fmt.Sprintf(format, args...))
}

// Event prints something that happened while the story waited, with its time.
func (p *Printer) Event(format string, args ...any) {
	p.printf("  [%5.1fs] %s\n", time.Since(p.start).Seconds(), fmt.Sprintf(format, args...))
}

// Command shows a command as the user would type it.
func (p *Printer) Command(cmd string) {
	p.printf("    $ %s\n", cmd)
}

// Output shows a command's output, indented under it.
func (p *Printer) Output(text string) {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return
	}
	for line := range strings.SplitSeq(text, "\n") {
		p.printf("      %s\n", line)
	}
}

// Elapsed is the time since the demo started.
func (p *Printer) Elapsed() time.Duration { return time.Since(p.start) }

func (p *Printer) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format, args...)
}
