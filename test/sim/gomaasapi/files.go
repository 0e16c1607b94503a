// Files, as juju keeps its provider state in MAAS: add (multipart), list by prefix, read through
// the listing (op=get) and through GetFile (base64 in the JSON), the anonymous URL without
// credentials, replace, delete, and the NoMatchError of a file that is not there.

package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"

	"github.com/juju/gomaasapi"
)

const stateFile = "maasflow-state"

// payload holds every byte value, so a text encoding anywhere on the way would show.
func payload() []byte {
	b := make([]byte, 0, 260)
	for i := 0; i < 256; i++ {
		b = append(b, byte(i))
	}
	return append(b, 0, '\r', '\n', 0xff)
}

func digest(b []byte) string {
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

func files(f *flow, c gomaasapi.Controller) {
	want := payload()
	if !f.step("files_add", func() (facts, error) {
		if err := c.AddFile(gomaasapi.AddFileArgs{Filename: stateFile, Content: want}); err != nil {
			return nil, err
		}
		other := []byte("other content")
		if err := c.AddFile(gomaasapi.AddFileArgs{Filename: "maasflow-other", Reader: bytes.NewReader(other), Length: int64(len(other))}); err != nil {
			return nil, err
		}
		return facts{"sha256": digest(want)}, nil
	}) {
		for _, s := range []string{"files_list", "files_read_listed", "file_get", "file_anonymous_url", "file_replace", "file_delete", "file_get_missing"} {
			f.skip(s, "files_add failed")
		}
		return
	}
	f.step("files_list", func() (facts, error) {
		got, err := c.Files("maasflow-")
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(got))
		for _, file := range got {
			names = append(names, file.Filename())
		}
		none, err := c.Files("no-such-prefix")
		if err != nil {
			return nil, err
		}
		if len(none) != 0 {
			return facts{"names": names}, fmt.Errorf("prefix no-such-prefix listed %d files", len(none))
		}
		return facts{"names": names}, nil
	})
	f.step("files_read_listed", func() (facts, error) {
		got, err := c.Files(stateFile)
		if err != nil {
			return nil, err
		}
		if len(got) != 1 {
			return facts{"count": len(got)}, fmt.Errorf("prefix %s: expected one file", stateFile)
		}
		// A listed file has no content: ReadAll asks the server (files/?op=get&filename=).
		content, err := got[0].ReadAll()
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(content, want) {
			return facts{"sha256": digest(content)}, fmt.Errorf("content read through the listing differs (%d bytes, want %d)", len(content), len(want))
		}
		return facts{"sha256": digest(content)}, nil
	})
	var file gomaasapi.File
	f.step("file_get", func() (facts, error) {
		var err error
		file, err = c.GetFile(stateFile)
		if err != nil {
			return nil, err
		}
		content, err := file.ReadAll()
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(content, want) {
			return facts{"sha256": digest(content)}, fmt.Errorf("content of GetFile differs (%d bytes, want %d)", len(content), len(want))
		}
		return facts{"filename": file.Filename(), "sha256": digest(content), "anonymous_url": file.AnonymousURL()}, nil
	})
	f.step("file_anonymous_url", func() (facts, error) {
		if file == nil {
			return nil, fmt.Errorf("no file from file_get")
		}
		// What juju's agents do: read the file with no API key at all.
		resp, err := http.Get(file.AnonymousURL())
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		content, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK || !bytes.Equal(content, want) {
			return facts{"status": resp.StatusCode, "bytes": len(content)}, fmt.Errorf("anonymous read: status %d, %d bytes", resp.StatusCode, len(content))
		}
		return facts{"status": resp.StatusCode}, nil
	})
	f.step("file_replace", func() (facts, error) {
		next := []byte("replaced content")
		if err := c.AddFile(gomaasapi.AddFileArgs{Filename: stateFile, Content: next}); err != nil {
			return nil, err
		}
		again, err := c.GetFile(stateFile)
		if err != nil {
			return nil, err
		}
		content, err := again.ReadAll()
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(content, next) {
			return facts{"content": string(content)}, fmt.Errorf("AddFile of an existing name did not replace its content")
		}
		return facts{"content": string(content)}, nil
	})
	f.step("file_delete", func() (facts, error) {
		if file == nil {
			return nil, fmt.Errorf("no file from file_get")
		}
		if err := file.Delete(); err != nil {
			return nil, err
		}
		if _, err := c.GetFile(stateFile); !gomaasapi.IsNoMatchError(err) {
			return nil, fmt.Errorf("GetFile after Delete: expected a NoMatchError, got %v", err)
		}
		if err := file.Delete(); !gomaasapi.IsNoMatchError(err) {
			return nil, fmt.Errorf("a second Delete: expected a NoMatchError, got %v", err)
		}
		left, err := c.Files("maasflow-")
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(left))
		for _, l := range left {
			names = append(names, l.Filename())
		}
		return facts{"left": names}, nil
	})
	f.step("file_get_missing", func() (facts, error) {
		_, err := c.GetFile("maasflow-none")
		if !gomaasapi.IsNoMatchError(err) {
			return nil, fmt.Errorf("expected a NoMatchError, got %T: %v", err, err)
		}
		return nil, nil
	})
}
