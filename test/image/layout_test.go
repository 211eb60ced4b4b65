package image

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The OCI image-spec media types that make image writes.
const (
	mediaTypeManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaTypeConfig   = "application/vnd.oci.image.config.v1+json"
	mediaTypeLayerGz  = "application/vnd.oci.image.layer.v1.tar+gzip"
)

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type index struct {
	SchemaVersion int          `json:"schemaVersion"`
	Manifests     []descriptor `json:"manifests"`
}

type manifest struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Config        descriptor   `json:"config"`
	Layers        []descriptor `json:"layers"`
}

type imageConfig struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	Config       struct {
		Entrypoint []string          `json:"Entrypoint"`
		Cmd        []string          `json:"Cmd"`
		User       string            `json:"User"`
		WorkingDir string            `json:"WorkingDir"`
		Env        []string          `json:"Env"`
		Labels     map[string]string `json:"Labels"`
	} `json:"config"`
	RootFS struct {
		Type    string   `json:"type"`
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
}

// builtImage is what the test reads from the layout: the index entry, the manifest, the
// config and the layers' files by path.
type builtImage struct {
	ref      string // the tag, as the OCI index names it
	name     string // repository:tag, as containerd names it
	manifest manifest
	config   imageConfig
	files    map[string]layerFile
}

type layerFile struct {
	header *tar.Header
	data   []byte
}

// layoutDir is the OCI layout that make image wrote; make test passes it in $OME_IMAGE_LAYOUT.
func layoutDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("OME_IMAGE_LAYOUT")
	if dir == "" {
		t.Skip("OME_IMAGE_LAYOUT is not set: make test builds the image with make image and sets it to _out/image/oci")
	}
	return dir
}

// openLayout reads the one image of the layout, checking every blob against its digest and
// size on the way, as a registry or a container runtime would.
func openLayout(t *testing.T, dir string) *builtImage {
	t.Helper()
	var layout struct {
		Version string `json:"imageLayoutVersion"`
	}
	readJSON(t, filepath.Join(dir, "oci-layout"), &layout)
	if layout.Version != "1.0.0" {
		t.Fatalf("oci-layout: imageLayoutVersion %q, want 1.0.0", layout.Version)
	}
	var idx index
	readJSON(t, filepath.Join(dir, "index.json"), &idx)
	if len(idx.Manifests) != 1 {
		t.Fatalf("index.json lists %d manifests, want the one image: %+v", len(idx.Manifests), idx.Manifests)
	}
	desc := idx.Manifests[0]
	if desc.MediaType != mediaTypeManifest {
		t.Fatalf("index.json: manifest media type %q, want %q", desc.MediaType, mediaTypeManifest)
	}
	img := &builtImage{
		ref:   desc.Annotations["org.opencontainers.image.ref.name"],
		name:  desc.Annotations["io.containerd.image.name"],
		files: map[string]layerFile{},
	}
	if err := json.Unmarshal(blob(t, dir, desc), &img.manifest); err != nil {
		t.Fatalf("decode the manifest: %v", err)
	}
	if img.manifest.Config.MediaType != mediaTypeConfig {
		t.Fatalf("config media type %q, want %q", img.manifest.Config.MediaType, mediaTypeConfig)
	}
	if err := json.Unmarshal(blob(t, dir, img.manifest.Config), &img.config); err != nil {
		t.Fatalf("decode the image config: %v", err)
	}
	if len(img.manifest.Layers) != len(img.config.RootFS.DiffIDs) {
		t.Fatalf("%d layers but %d diff_ids", len(img.manifest.Layers), len(img.config.RootFS.DiffIDs))
	}
	for i, l := range img.manifest.Layers {
		if l.MediaType != mediaTypeLayerGz {
			t.Fatalf("layer %d media type %q, want %q", i, l.MediaType, mediaTypeLayerGz)
		}
		img.readLayer(t, blob(t, dir, l), img.config.RootFS.DiffIDs[i])
	}
	return img
}

// readLayer unpacks a gzipped layer into img.files, checking its uncompressed digest against
// the config's diff_id.
func (img *builtImage) readLayer(t *testing.T, gz []byte, diffID string) {
	t.Helper()
	zr, err := gzip.NewReader(strings.NewReader(string(gz)))
	if err != nil {
		t.Fatalf("layer: %v", err)
	}
	h := sha256.New()
	tr := tar.NewReader(io.TeeReader(zr, h))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("layer: %v", err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("layer %s: %v", hdr.Name, err)
		}
		img.files["/"+strings.TrimPrefix(hdr.Name, "/")] = layerFile{header: hdr, data: data}
	}
	if _, err := io.Copy(h, zr); err != nil { // the tar's end padding counts too
		t.Fatalf("layer: %v", err)
	}
	if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != diffID {
		t.Fatalf("layer content digest %s, config's diff_id %s", got, diffID)
	}
}

// blob reads the blob that desc points at and fails the test when its digest or size is wrong.
func blob(t *testing.T, dir string, desc descriptor) []byte {
	t.Helper()
	alg, hexDigest, ok := strings.Cut(desc.Digest, ":")
	if !ok || alg != "sha256" {
		t.Fatalf("digest %q: want sha256:<hex>", desc.Digest)
	}
	data, err := os.ReadFile(filepath.Join(dir, "blobs", alg, hexDigest))
	if err != nil {
		t.Fatalf("read blob: %v", err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != hexDigest {
		t.Fatalf("blob %s has digest sha256:%s", desc.Digest, got)
	}
	if int64(len(data)) != desc.Size {
		t.Fatalf("blob %s has %d bytes, its descriptor says %d", desc.Digest, len(data), desc.Size)
	}
	return data
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
}

// extract writes the image's file at path to a temporary file that the test may run.
func (img *builtImage) extract(t *testing.T, path string) string {
	t.Helper()
	f, ok := img.files[path]
	if !ok {
		t.Fatalf("the image has no %s; it has %v", path, img.paths())
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, f.data, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}

func (img *builtImage) paths() []string {
	var p []string
	for k := range img.files {
		p = append(p, k)
	}
	return p
}

// repoRoot is the module's root directory, two levels above this file.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("runtime.Caller: no file for this test")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func readFile(t *testing.T, parts ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{repoRoot(t)}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func (img *builtImage) String() string {
	return fmt.Sprintf("%s (%s/%s)", img.ref, img.config.OS, img.config.Architecture)
}
