package framework

import (
	"os"
	"strconv"
	"testing"
)

// EnvInt is the positive integer in the environment variable name, def when it is unset;
// anything else fails the test, naming the variable.
func EnvInt(t testing.TB, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}
