// Reading machines, and each list filter juju uses narrowing the list as MAAS does.

package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/juju/gomaasapi"
)

func hostnames(ms []gomaasapi.Machine) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.Hostname())
	}
	sort.Strings(out)
	return out
}

// machines reads the fleet and checks that each filter juju uses narrows the list as MAAS does.
func machines(f *flow, c gomaasapi.Controller, o options) []gomaasapi.Machine {
	var all []gomaasapi.Machine
	if !f.step("machines", func() (facts, error) {
		var err error
		all, err = c.Machines(gomaasapi.MachinesArgs{})
		if err != nil {
			return nil, err
		}
		statuses := map[string]int{}
		for _, m := range all {
			statuses[m.StatusName()]++
		}
		first := facts{}
		if len(all) > 0 {
			m := all[0]
			first = facts{"system_id": m.SystemID(), "hostname": m.Hostname(), "fqdn": m.FQDN(), "architecture": m.Architecture(),
				"cpu_count": m.CPUCount(), "memory": m.Memory(), "zone": m.Zone().Name(), "power_state": m.PowerState(),
				"interfaces": len(m.InterfaceSet()), "physical_block_devices": len(m.PhysicalBlockDevices()), "block_devices": len(m.BlockDevices()),
				"hardware_info": m.HardwareInfo()}
			if m.Pool() != nil {
				first["pool"] = m.Pool().Name()
			}
			if m.BootInterface() != nil {
				first["boot_interface"] = m.BootInterface().MACAddress()
			}
		}
		if len(all) == 0 {
			return facts{"count": 0}, fmt.Errorf("no machines listed")
		}
		return facts{"count": len(all), "statuses": statuses, "first": first}, nil
	}) || len(all) == 0 {
		return nil
	}
	pick := all[0]
	expectOne := func(name string, args gomaasapi.MachinesArgs, want string) {
		f.step(name, func() (facts, error) {
			got, err := c.Machines(args)
			if err != nil {
				return nil, err
			}
			names := hostnames(got)
			if len(got) != 1 || got[0].Hostname() != want {
				return facts{"hostnames": names}, fmt.Errorf("expected only %s, got %v", want, names)
			}
			return facts{"hostnames": names}, nil
		})
	}
	expectOne("machines_by_hostname", gomaasapi.MachinesArgs{Hostnames: []string{pick.Hostname()}}, pick.Hostname())
	expectOne("machines_by_system_id", gomaasapi.MachinesArgs{SystemIDs: []string{pick.SystemID()}}, pick.Hostname())
	if len(all) > 1 {
		f.step("machines_by_two_hostnames", func() (facts, error) {
			want := hostnames(all[:2])
			got, err := c.Machines(gomaasapi.MachinesArgs{Hostnames: want})
			if err != nil {
				return nil, err
			}
			if names := hostnames(got); strings.Join(names, ",") != strings.Join(want, ",") {
				return facts{"hostnames": names}, fmt.Errorf("expected %v, got %v", want, names)
			}
			return facts{"hostnames": want}, nil
		})
	}
	if mac := firstMAC(pick); mac != "" {
		expectOne("machines_by_mac_address", gomaasapi.MachinesArgs{MACAddresses: []string{mac}}, pick.Hostname())
	}
	expectAll := func(name string, args gomaasapi.MachinesArgs, holds func(gomaasapi.Machine) bool, what string) {
		f.step(name, func() (facts, error) {
			got, err := c.Machines(args)
			if err != nil {
				return nil, err
			}
			want := []string{}
			for _, m := range all {
				if holds(m) {
					want = append(want, m.Hostname())
				}
			}
			sort.Strings(want)
			names := hostnames(got)
			if strings.Join(names, ",") != strings.Join(want, ",") {
				return facts{"hostnames": names, "expected": want}, fmt.Errorf("the %s filter: expected %v, got %v", what, want, names)
			}
			return facts{"count": len(names)}, nil
		})
	}
	zone := pick.Zone().Name()
	expectAll("machines_by_zone", gomaasapi.MachinesArgs{Zone: zone}, func(m gomaasapi.Machine) bool { return m.Zone().Name() == zone }, "zone")
	if pick.Pool() != nil {
		pool := pick.Pool().Name()
		expectAll("machines_by_pool", gomaasapi.MachinesArgs{Pool: pool}, func(m gomaasapi.Machine) bool { return m.Pool() != nil && m.Pool().Name() == pool }, "pool")
	}
	expectAll("machines_by_tags", gomaasapi.MachinesArgs{Tags: []string{o.tag}}, func(m gomaasapi.Machine) bool { return hasTag(m, o.tag) }, "tags")
	expectAll("machines_by_domain", gomaasapi.MachinesArgs{Domain: domainOf(pick)}, func(m gomaasapi.Machine) bool { return domainOf(m) == domainOf(pick) }, "domain")
	return all
}

func firstMAC(m gomaasapi.Machine) string {
	for _, i := range m.InterfaceSet() {
		if i.MACAddress() != "" {
			return i.MACAddress()
		}
	}
	return ""
}

func hasTag(m gomaasapi.Machine, tag string) bool {
	for _, t := range m.Tags() {
		if t == tag {
			return true
		}
	}
	return false
}

func domainOf(m gomaasapi.Machine) string {
	if i := strings.IndexByte(m.FQDN(), '.'); i >= 0 {
		return m.FQDN()[i+1:]
	}
	return ""
}
