// Command image builds the manager's container image without a container engine: one layer
// holding the static manager binary, no base image to pull, the same entrypoint, user and
// labels as the Dockerfile. It writes the image twice, as an OCI image layout (a directory
// that skopeo, crane, oras and containerd read) and as a tarball that `docker load` and
// `podman load` read.
//
// The image is reproducible: file times and the creation time come from SOURCE_DATE_EPOCH
// (0 when unset), so the same binary always gives the same digest.
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// binaryPath is where the manager lives in the image; the Dockerfile copies it to the same place.
const binaryPath = "/manager"

// nonRoot is distroless's "nonroot" user and group. The image has no /etc/passwd, so the
// user is numeric, which also lets the kubelet check runAsNonRoot without resolving a name.
const nonRoot = "65532:65532"

type options struct {
	binary    string
	layoutDir string
	tarPath   string
	ref       string
	arch      string
	labels    labelFlags
}

// labelFlags collects repeated --label key=value flags.
type labelFlags map[string]string

func (l labelFlags) String() string { return fmt.Sprint(map[string]string(l)) }

func (l labelFlags) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("--label %q: want key=value", s)
	}
	l[k] = v
	return nil
}

func main() {
	o := options{labels: labelFlags{}}
	flag.StringVar(&o.binary, "binary", "", "The static manager binary to put in the image.")
	flag.StringVar(&o.layoutDir, "oci-layout", "", "Directory to write the OCI image layout to (replaced).")
	flag.StringVar(&o.tarPath, "tarball", "", "File to write the docker-load tarball to (replaced).")
	flag.StringVar(&o.ref, "ref", "", "Image reference (repository:tag) recorded in the tarball and the layout's index.")
	flag.StringVar(&o.arch, "arch", "amd64", "The binary's architecture (GOARCH).")
	flag.Var(o.labels, "label", "An image label key=value; repeat for more.")
	flag.Parse()
	if err := build(o); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func build(o options) error {
	if o.binary == "" || o.layoutDir == "" || o.tarPath == "" || o.ref == "" {
		return errors.New("--binary, --oci-layout, --tarball and --ref are required")
	}
	ref, err := name.NewTag(o.ref, name.StrictValidation)
	if err != nil {
		return fmt.Errorf("--ref: %w", err)
	}
	created, err := sourceDate()
	if err != nil {
		return err
	}
	img, err := image(o, created)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(o.layoutDir); err != nil {
		return err
	}
	p, err := layout.Write(o.layoutDir, empty.Index)
	if err != nil {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": ref.TagStr(),
		"io.containerd.image.name":          ref.Name(),
	})); err != nil {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	if err := tarball.WriteToFile(o.tarPath, ref, img); err != nil {
		return fmt.Errorf("write tarball: %w", err)
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s@%s\n", ref.Name(), digest)
	return nil
}

// image is the manager binary as the only layer, on no base.
func image(o options, created time.Time) (v1.Image, error) {
	bin, err := os.ReadFile(o.binary)
	if err != nil {
		return nil, err
	}
	layerTar, err := layerTarball(bin, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.AppendLayers(img, layer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", o.arch
	cf.Created = v1.Time{Time: created}
	cf.Config.Entrypoint = []string{binaryPath}
	cf.Config.User = nonRoot
	cf.Config.WorkingDir = "/"
	cf.Config.Labels = o.labels
	cf.History = []v1.History{{Created: v1.Time{Time: created}, CreatedBy: "make image: COPY manager " + binaryPath}}
	return mutate.ConfigFile(img, cf)
}

// layerTarball is a tar with the binary at binaryPath, owned by root and executable by all:
// the non-root user runs it but cannot change it.
func layerTarball(bin []byte, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     strings.TrimPrefix(binaryPath, "/"),
		Mode:     0o555,
		Size:     int64(len(bin)),
		ModTime:  mtime,
		Format:   tar.FormatPAX,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(bin); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// sourceDate is SOURCE_DATE_EPOCH (seconds since 1970), the reproducible-builds convention.
func sourceDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", s, err)
	}
	return time.Unix(sec, 0).UTC(), nil
}
