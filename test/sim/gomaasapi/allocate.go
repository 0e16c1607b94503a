// allocate with juju's constraints, dry run first, and what the answer must hold.

package main

import (
	"fmt"

	"github.com/juju/gomaasapi"
)

func machineFacts(m gomaasapi.Machine) facts {
	out := facts{"system_id": m.SystemID(), "hostname": m.Hostname(), "zone": m.Zone().Name(), "tags": m.Tags(),
		"cpu_count": m.CPUCount(), "memory": m.Memory(), "status": m.StatusName(), "power_state": m.PowerState()}
	if m.Pool() != nil {
		out["pool"] = m.Pool().Name()
	}
	return out
}

func allocateArgs(o options, dryRun bool) gomaasapi.AllocateMachineArgs {
	args := gomaasapi.AllocateMachineArgs{
		Zone: o.zone, Pool: o.pool, Tags: []string{o.tag}, NotTags: []string{o.notTag}, NotInZone: []string{o.notZone},
		MinCPUCount: o.cpu, MinMemory: o.mem, AgentName: o.agent, Comment: "maasflow allocate", DryRun: dryRun,
	}
	if o.storageGB > 0 {
		args.Storage = []gomaasapi.StorageSpec{{Label: "root", Size: o.storageGB}}
	}
	return args
}

// checkConstraints says which constraint the allocated machine breaks, if any.
func checkConstraints(m gomaasapi.Machine, o options) error {
	switch {
	case m.Zone().Name() != o.zone:
		return fmt.Errorf("zone %q, asked for %q", m.Zone().Name(), o.zone)
	case m.Pool() == nil || m.Pool().Name() != o.pool:
		return fmt.Errorf("not in pool %q", o.pool)
	case !hasTag(m, o.tag):
		return fmt.Errorf("tags %v lack %q", m.Tags(), o.tag)
	case hasTag(m, o.notTag):
		return fmt.Errorf("tags %v have the excluded %q", m.Tags(), o.notTag)
	case m.CPUCount() < o.cpu:
		return fmt.Errorf("cpu_count %d < %d", m.CPUCount(), o.cpu)
	case m.Memory() < o.mem:
		return fmt.Errorf("memory %d < %d", m.Memory(), o.mem)
	}
	return nil
}

func allocate(f *flow, c gomaasapi.Controller, o options) gomaasapi.Machine {
	f.step("allocate_dry_run", func() (facts, error) {
		m, _, err := c.AllocateMachine(allocateArgs(o, true))
		if err != nil {
			return nil, err
		}
		out := machineFacts(m)
		// dry_run names the machine a real allocate would take without taking it.
		again, err := c.Machines(gomaasapi.MachinesArgs{SystemIDs: []string{m.SystemID()}})
		if err != nil {
			return out, err
		}
		if len(again) != 1 || again[0].StatusName() != "Ready" {
			return out, fmt.Errorf("dry_run changed the machine: it is no longer Ready")
		}
		return out, checkConstraints(m, o)
	})
	// juju's spaces constraint: an interface labelled "eth" on the space, named back in
	// constraints_by_type.interfaces with the machine's interface ids.
	if f.space != "" {
		f.step("allocate_interfaces_dry_run", func() (facts, error) {
			args := allocateArgs(o, true)
			args.Interfaces = []gomaasapi.InterfaceSpec{{Label: "eth", Space: f.space}}
			m, matches, err := c.AllocateMachine(args)
			if err != nil {
				return facts{"space": f.space}, err
			}
			out := machineFacts(m)
			out["space"] = f.space
			ids := []int{}
			for _, i := range matches.Interfaces["eth"] {
				ids = append(ids, i.ID())
			}
			out["interface_matches"] = ids
			if len(ids) == 0 {
				return out, fmt.Errorf("constraints_by_type: no interface matched the label \"eth\" (space %s)", f.space)
			}
			return out, checkConstraints(m, o)
		})
	}
	f.step("allocate_no_match", func() (facts, error) {
		_, _, err := c.AllocateMachine(gomaasapi.AllocateMachineArgs{MinCPUCount: 1 << 20})
		if err == nil {
			return nil, fmt.Errorf("a machine with a million CPUs was allocated")
		}
		if !gomaasapi.IsNoMatchError(err) {
			return facts{"got": err.Error()}, fmt.Errorf("expected a NoMatchError (409), got %T", err)
		}
		return nil, nil
	})
	var m gomaasapi.Machine
	f.step("allocate", func() (facts, error) {
		var matches gomaasapi.ConstraintMatches
		var err error
		m, matches, err = c.AllocateMachine(allocateArgs(o, false))
		if err != nil {
			m = nil
			return nil, err
		}
		out := machineFacts(m)
		storage := map[string][]int{}
		for label, devs := range matches.Storage {
			for _, d := range devs {
				storage[label] = append(storage[label], d.ID())
			}
		}
		out["storage_matches"] = storage
		if o.storageGB > 0 && len(storage["root"]) == 0 {
			return out, fmt.Errorf("constraints_by_type: no storage device matched the label \"root\"")
		}
		if m.StatusName() != "Allocated" {
			return out, fmt.Errorf("status %q after allocate, expected Allocated", m.StatusName())
		}
		return out, checkConstraints(m, o)
	})
	return m
}
