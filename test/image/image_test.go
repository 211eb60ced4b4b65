package image

import (
	"bufio"
	"bytes"
	"context"
	"debug/buildinfo"
	"debug/elf"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

const (
	entrypoint = "/manager"
	// nonRoot is the user the image runs as: distroless's nonroot, numeric so that the kubelet
	// can check runAsNonRoot without an /etc/passwd.
	nonRoot = "65532:65532"
	// fallbackRoots is the package that gives the binary the public certificate authorities.
	fallbackRoots = "golang.org/x/crypto/x509roots/fallback"
)

func TestImageConfig(t *testing.T) {
	img := openLayout(t, layoutDir(t))
	c := img.config
	if c.OS != "linux" || c.Architecture != runtime.GOARCH {
		t.Errorf("platform %s/%s, want linux/%s", c.OS, c.Architecture, runtime.GOARCH)
	}
	if got := strings.Join(c.Config.Entrypoint, " "); got != entrypoint {
		t.Errorf("entrypoint %q, want %q", c.Config.Entrypoint, entrypoint)
	}
	if len(c.Config.Cmd) != 0 {
		t.Errorf("cmd %q, want none: the chart passes every argument", c.Config.Cmd)
	}
	if c.Config.User != nonRoot {
		t.Errorf("user %q, want %q", c.Config.User, nonRoot)
	}
	if len(img.files) != 1 {
		t.Errorf("the image holds %v, want only %s", img.paths(), entrypoint)
	}
	f, ok := img.files[entrypoint]
	if !ok {
		t.Fatalf("the image has no %s; it has %v", entrypoint, img.paths())
	}
	// Owned by root and not writable: the non-root user runs the binary but cannot replace it.
	if f.header.Uid != 0 || f.header.Mode&0o222 != 0 || f.header.Mode&0o001 == 0 {
		t.Errorf("%s: uid %d mode %o, want uid 0, executable by all, writable by none", entrypoint, f.header.Uid, f.header.Mode)
	}
}

// TestImageMatchesChartAndDockerfile: the chart's default image is the one make image names,
// and the Dockerfile describes the same image (base, user, entrypoint, labels).
func TestImageMatchesChartAndDockerfile(t *testing.T) {
	img := openLayout(t, layoutDir(t))
	appVersion, repository := chartImage(t)
	if img.ref != appVersion {
		t.Errorf("the layout's tag is %q, want the chart's appVersion %q", img.ref, appVersion)
	}
	if img.name != repository+":"+appVersion {
		t.Errorf("the layout's image name is %q, want the chart's default %s:%s", img.name, repository, appVersion)
	}

	df := parseDockerfile(t)
	if df.base != "scratch" {
		t.Errorf("the Dockerfile's final stage is FROM %s, want scratch, like make image", df.base)
	}
	if df.user != nonRoot {
		t.Errorf("Dockerfile USER %q, want %q", df.user, nonRoot)
	}
	if df.entrypoint != `["`+entrypoint+`"]` {
		t.Errorf("Dockerfile ENTRYPOINT %s, want [%q]", df.entrypoint, entrypoint)
	}
	if df.versionArg != appVersion {
		t.Errorf("Dockerfile ARG VERSION defaults to %q, want the chart's appVersion %q", df.versionArg, appVersion)
	}
	want := map[string]string{}
	for k, v := range df.labels {
		want[k] = strings.ReplaceAll(v, "${VERSION}", df.versionArg)
	}
	if len(want) == 0 {
		t.Fatal("the Dockerfile sets no LABEL")
	}
	got := img.config.Config.Labels
	for k, v := range want {
		if got[k] != v {
			t.Errorf("label %s = %q, the Dockerfile says %q", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("label %s is in the image but not in the Dockerfile", k)
		}
	}
	if got["org.opencontainers.image.version"] != appVersion {
		t.Errorf("label org.opencontainers.image.version = %q, want %q", got["org.opencontainers.image.version"], appVersion)
	}
}

// TestBinary runs the image's manager: it must be static (the image has no libc), carry the
// public certificate authorities, and answer --help.
func TestBinary(t *testing.T) {
	img := openLayout(t, layoutDir(t))
	bin := img.extract(t, entrypoint)

	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatalf("%s is not an ELF binary: %v", entrypoint, err)
	}
	defer ef.Close()
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s asks for a dynamic loader: it would not start in an image without libc", entrypoint)
		}
	}
	if libs, _ := ef.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s links %v dynamically", entrypoint, libs)
	}

	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatalf("read build info: %v", err)
	}
	hasRoots := false
	for _, d := range info.Deps {
		hasRoots = hasRoots || d.Path == fallbackRoots
	}
	if !hasRoots {
		t.Errorf("%s is built without %s: an HTTPS probe would trust no certificate authority in the image", entrypoint, fallbackRoots)
	}
	for _, s := range info.Settings {
		if s.Key == "CGO_ENABLED" && s.Value != "0" {
			t.Errorf("%s was built with CGO_ENABLED=%s", entrypoint, s.Value)
		}
	}

	// A guard against a binary that hangs, not a timing claim.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--help")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s --help: %v\n%s", entrypoint, err, out.String())
	}
	for _, flag := range []string{"-multicluster-config", "-enable-multicluster", "-leader-elect", "-metrics-bind-address"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("%s --help does not list %s:\n%s", entrypoint, flag, out.String())
		}
	}

	// make image stamps the binary with the chart's appVersion and the commit.
	appVersion, _ := chartImage(t)
	out.Reset()
	cmd = exec.CommandContext(ctx, bin, "--version")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s --version: %v\n%s", entrypoint, err, out.String())
	}
	stamped := regexp.MustCompile(`^manager ` + regexp.QuoteMeta(appVersion) + ` \(revision [0-9a-f]{40}(, modified)?, go[0-9.]+\)\n$`)
	if !stamped.MatchString(out.String()) {
		t.Errorf("%s --version printed %q, want the chart's appVersion %s and a commit", entrypoint, out.String(), appVersion)
	}
}

// chartImage is the chart's appVersion and its default image repository.
func chartImage(t *testing.T) (appVersion, repository string) {
	t.Helper()
	var chart struct {
		AppVersion string `json:"appVersion"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, "charts", "ome-resources", "Chart.yaml")), &chart); err != nil {
		t.Fatal(err)
	}
	var values struct {
		Image struct {
			Repository string `json:"repository"`
			Tag        string `json:"tag"`
		} `json:"image"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, "charts", "ome-resources", "values.yaml")), &values); err != nil {
		t.Fatal(err)
	}
	if values.Image.Tag != "" {
		t.Errorf("values.yaml sets image.tag %q: the default tag is the chart's appVersion", values.Image.Tag)
	}
	return chart.AppVersion, values.Image.Repository
}

// dockerfile is what the Dockerfile's final stage says about the image.
type dockerfile struct {
	base, user, entrypoint, versionArg string
	labels                             map[string]string
}

var labelPair = regexp.MustCompile(`([a-z0-9.\-]+)="([^"]*)"`)

func parseDockerfile(t *testing.T) dockerfile {
	t.Helper()
	// Join continued lines, drop comments.
	var lines []string
	var cur strings.Builder
	sc := bufio.NewScanner(strings.NewReader(readFile(t, "Dockerfile")))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			continue
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(cont + " ")
			continue
		}
		cur.WriteString(line)
		lines = append(lines, cur.String())
		cur.Reset()
	}
	var df dockerfile
	for _, line := range lines {
		instr, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(instr) {
		case "FROM": // a new stage: only the last one is the image
			df = dockerfile{base: strings.Fields(rest)[0], labels: map[string]string{}}
		case "USER":
			df.user = rest
		case "ENTRYPOINT":
			df.entrypoint = rest
		case "ARG":
			if v, ok := strings.CutPrefix(rest, "VERSION="); ok {
				df.versionArg = v
			}
		case "LABEL":
			for _, m := range labelPair.FindAllStringSubmatch(rest, -1) {
				df.labels[m[1]] = m[2]
			}
		}
	}
	return df
}
