// maasflow drives a MAAS with juju's Go client (gomaasapi) through the calls juju makes, one step
// at a time, and prints one JSON line per step: {"step":..., "ok":..., "error":..., facts...}.
// It is the simulator's proof that a client we did not write can use it: the client's own schema
// checks decide what a response must contain. Built in GOPATH mode from Debian's packages
// (golang-go, golang-github-juju-gomaasapi-dev), so no network is needed:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o maasflow ./test/sim/gomaasapi
//	maasflow [flags] http://127.0.0.1:PORT/MAAS CONSUMER:TOKEN:SECRET
//
// The exit status is 0 when every step is ok, 1 when one failed, 2 on bad arguments. A failed step
// does not stop the flow where later steps can still run, so one run shows every gap at once.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/juju/gomaasapi"
)

type facts map[string]interface{}

type flow struct {
	failed bool
	out    *json.Encoder
	// space is the first space the MAAS lists, for the interfaces constraint.
	space string
	// subnet is the first subnet of that space, for a container device's link.
	subnet gomaasapi.Subnet
}

// step runs fn and prints its line; a panic inside the client (a shape it did not expect) is a
// failed step, not a crashed flow.
func (f *flow) step(name string, fn func() (facts, error)) (ok bool) {
	line := facts{"step": name}
	defer func() {
		if r := recover(); r != nil {
			line["ok"] = false
			line["error"] = fmt.Sprintf("panic: %v", r)
			f.failed = true
			ok = false
		}
		if err := f.out.Encode(line); err != nil {
			fmt.Fprintln(os.Stderr, "maasflow: cannot write:", err)
			os.Exit(2)
		}
	}()
	got, err := fn()
	for k, v := range got {
		line[k] = v
	}
	line["ok"] = err == nil
	if err != nil {
		line["error"] = err.Error()
		f.failed = true
	}
	return err == nil
}

// skip records a step that could not run because an earlier one failed.
func (f *flow) skip(name, because string) {
	f.failed = true
	_ = f.out.Encode(facts{"step": name, "ok": false, "error": "skipped: " + because})
}

type options struct {
	zone, pool, tag, notTag, agent, series, notZone string
	cpu, mem, storageGB                             int
	timeout, poll                                   time.Duration
	pause                                           bool
}

func main() {
	var o options
	flag.StringVar(&o.zone, "zone", "az1", "allocate in this zone")
	flag.StringVar(&o.notZone, "not-zone", "az2", "allocate outside this zone")
	flag.StringVar(&o.pool, "pool", "default", "allocate from this resource pool")
	flag.StringVar(&o.tag, "tag", "ssd", "allocate a machine with this tag")
	flag.StringVar(&o.notTag, "not-tag", "gpu", "allocate a machine without this tag")
	flag.IntVar(&o.cpu, "cpu", 8, "allocate at least this many CPUs")
	flag.IntVar(&o.mem, "mem", 16384, "allocate at least this much memory (MiB)")
	flag.IntVar(&o.storageGB, "storage-gb", 8, "allocate with a root disk of at least this many GB (0: no storage constraint)")
	flag.StringVar(&o.agent, "agent", "juju-maasflow", "agent_name for allocate and the machines filter")
	flag.StringVar(&o.series, "series", "jammy", "distro_series to deploy")
	flag.DurationVar(&o.timeout, "timeout", 60*time.Second, "how long to wait for Deployed and for Ready after release")
	flag.DurationVar(&o.poll, "poll", 100*time.Millisecond, "how often to poll the machine while waiting")
	flag.BoolVar(&o.pause, "pause-before-release", false, "print a \"pause\" step before releasing and wait for a line on stdin (lets a test look at the MAAS mid-flow)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: maasflow [flags] MAAS_URL API_KEY")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	// Checked here because gomaasapi's own message for a malformed key quotes the key.
	if len(strings.Split(flag.Arg(1), ":")) != 3 {
		fmt.Fprintln(os.Stderr, "maasflow: API_KEY: expected CONSUMER_KEY:TOKEN_KEY:TOKEN_SECRET (the value is not shown)")
		os.Exit(2)
	}
	f := &flow{out: json.NewEncoder(os.Stdout)}
	run(f, flag.Arg(0), flag.Arg(1), o)
	if f.failed {
		os.Exit(1)
	}
}

func run(f *flow, url, key string, o options) {
	// A wrong key must be refused at connect, as a PermissionError (401 on users/?op=whoami).
	f.step("connect_bad_key", func() (facts, error) {
		_, err := gomaasapi.NewController(gomaasapi.ControllerArgs{BaseURL: url, APIKey: wrongKey(key)})
		if err == nil {
			return nil, fmt.Errorf("a wrong API key was accepted")
		}
		if !gomaasapi.IsPermissionError(err) {
			return facts{"got": err.Error()}, fmt.Errorf("expected a PermissionError for a wrong key, got %T: %v", err, err)
		}
		return nil, nil
	})

	var c gomaasapi.Controller
	if !f.step("connect", func() (facts, error) {
		var err error
		c, err = gomaasapi.NewController(gomaasapi.ControllerArgs{BaseURL: url, APIKey: key})
		if err != nil {
			return nil, err
		}
		version, subversion, err := c.APIVersionInfo()
		caps := c.Capabilities().SortedValues()
		return facts{"version": version, "subversion": subversion, "capabilities": caps}, err
	}) {
		for _, s := range []string{"zones", "pools_is_not_maas", "resourcepools", "domains", "spaces", "fabrics", "boot_resources", "static_routes", "tags", "machines", "allocate", "start", "wait_deployed", "set_owner_data", "release", "create_device", "files_add"} {
			f.skip(s, "connect failed")
		}
		return
	}

	places(f, c)
	resourcePools(f, url, key)
	all := machines(f, c, o)
	m := allocate(f, c, o)
	if m == nil {
		for _, s := range []string{"machines_by_agent_name", "start", "wait_deployed", "set_owner_data", "machines_by_owner_data", "machine_create_device", "release_unknown", "release", "wait_released"} {
			f.skip(s, "allocate failed")
		}
	} else {
		lifecycle(f, c, m, o)
	}
	devices(f, c, all)
	files(f, c)
	probes(f, c, all, url, key)
}

// wrongKey keeps the key's shape (so the client does not refuse it locally) but not its secret.
func wrongKey(key string) string {
	parts := strings.Split(key, ":")
	if len(parts) != 3 {
		return "aaaa:bbbb:cccc"
	}
	return parts[0] + ":" + parts[1] + ":" + strings.Repeat("0", len(parts[2]))
}
