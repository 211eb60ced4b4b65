package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/ome-routing/operator/pkg/version"
)

// Exit codes.
const (
	exitOK = 0
	// exitFailure: a bad setting, no API server, or the manager stopped on an error.
	exitFailure = 1
	// exitUsage: the command line is wrong.
	exitUsage = 2
)

func main() {
	os.Exit(run(flag.CommandLine, os.Args[1:], os.Stdout, os.Stderr))
}

// run starts the manager and returns the exit code. The settings file is loaded and
// validated before anything connects to an API server: a bad setting fails with its error
// on stderr, one line per problem, and nothing started.
func run(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	build := version.Get()
	if o.showVersion {
		fmt.Fprintln(stdout, "manager", build)
		return exitOK
	}
	cfg, err := loadSettings(o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailure
	}

	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&o.zap), zap.WriteTo(stderr)))
	log := ctrl.Log.WithName("setup")
	log.Info("Starting the OME routing operator's manager",
		"version", build.Version, "revision", build.Revision, "modified", build.Modified, "goVersion", build.GoVersion)
	logSettings(o, cfg)

	restCfg, err := ctrl.GetConfig()
	if err != nil {
		log.Error(err, "Unable to find the API server")
		return exitFailure
	}
	mgr, err := newManager(restCfg, o)
	if err != nil {
		log.Error(err, "Unable to create manager")
		return exitFailure
	}
	if err := setupControllers(mgr, o, cfg); err != nil {
		log.Error(err, "Unable to set up controllers")
		return exitFailure
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "Manager exited")
		return exitFailure
	}
	return exitOK
}
