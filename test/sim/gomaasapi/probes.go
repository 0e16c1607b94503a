// Calls beyond juju's main flow that other gomaasapi users make: allocate by name, system id,
// architecture, storage with disk tags, not_in_pool and not_subnets; a machine's storage and
// interfaces read through the client's own lookups; a device's interfaces created, renamed,
// linked and unlinked in each mode, and deleted; device and machine.Devices filters; tags.

package main

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/juju/errors"
	"github.com/juju/gomaasapi"
)

func readyMachine(all []gomaasapi.Machine, want func(gomaasapi.Machine) bool) gomaasapi.Machine {
	for _, m := range all {
		if m.StatusName() == "Ready" && want(m) {
			return m
		}
	}
	return nil
}

func probes(f *flow, c gomaasapi.Controller, all []gomaasapi.Machine, base, key string) {
	pick := readyMachine(all, func(gomaasapi.Machine) bool { return true })
	if pick == nil {
		f.skip("probe_allocate_by_name", "no Ready machine listed")
		return
	}
	dry := func(name string, args gomaasapi.AllocateMachineArgs, check func(gomaasapi.Machine, gomaasapi.ConstraintMatches) error) {
		f.step(name, func() (facts, error) {
			args.DryRun = true
			m, matches, err := c.AllocateMachine(args)
			if err != nil {
				return nil, err
			}
			return machineFacts(m), check(m, matches)
		})
	}
	dry("probe_allocate_by_name", gomaasapi.AllocateMachineArgs{Hostname: pick.Hostname()}, func(m gomaasapi.Machine, _ gomaasapi.ConstraintMatches) error {
		if m.SystemID() != pick.SystemID() {
			return fmt.Errorf("name=%s picked %s", pick.Hostname(), m.Hostname())
		}
		return nil
	})
	dry("probe_allocate_by_system_id", gomaasapi.AllocateMachineArgs{SystemId: pick.SystemID()}, func(m gomaasapi.Machine, _ gomaasapi.ConstraintMatches) error {
		if m.SystemID() != pick.SystemID() {
			return fmt.Errorf("system_id=%s picked %s", pick.SystemID(), m.SystemID())
		}
		return nil
	})
	for _, arch := range []string{pick.Architecture(), "amd64"} {
		dry("probe_allocate_arch_"+arch, gomaasapi.AllocateMachineArgs{Architecture: arch}, func(m gomaasapi.Machine, _ gomaasapi.ConstraintMatches) error { return nil })
	}
	dry("probe_allocate_not_in_pool", gomaasapi.AllocateMachineArgs{NotInPool: []string{pick.Pool().Name()}}, func(m gomaasapi.Machine, _ gomaasapi.ConstraintMatches) error {
		if m.Pool().Name() == pick.Pool().Name() {
			return fmt.Errorf("not_in_pool=%s picked %s in that pool", pick.Pool().Name(), m.Hostname())
		}
		return nil
	})
	// Two labelled disks, the second one tagged: both come back in constraints_by_type.storage.
	dry("probe_allocate_storage_tags", gomaasapi.AllocateMachineArgs{Storage: []gomaasapi.StorageSpec{{Label: "root", Size: 8}, {Label: "data", Size: 100, Tags: []string{"rotary"}}}}, func(m gomaasapi.Machine, matches gomaasapi.ConstraintMatches) error {
		if len(matches.Storage["root"]) != 1 || len(matches.Storage["data"]) != 1 {
			return fmt.Errorf("constraints_by_type.storage %v: expected one device for root and one for data", matches.Storage)
		}
		if d := matches.Storage["data"][0]; !hasString(d.Tags(), "rotary") || d.Size() < 100*1000*1000*1000 {
			return fmt.Errorf("data matched %d bytes tagged %v", d.Size(), d.Tags())
		}
		return nil
	})
	dry("probe_allocate_storage_unlabelled", gomaasapi.AllocateMachineArgs{Storage: []gomaasapi.StorageSpec{{Size: 8}}}, func(m gomaasapi.Machine, matches gomaasapi.ConstraintMatches) error { return nil })
	if f.space != "" {
		f.step("probe_allocate_not_space", func() (facts, error) {
			_, _, err := c.AllocateMachine(gomaasapi.AllocateMachineArgs{NotSpace: []string{f.space}, DryRun: true})
			if err != nil && !gomaasapi.IsNoMatchError(err) {
				return nil, err
			}
			return facts{"matched": err == nil}, nil
		})
	}
	machineDetails(f, all)
	deviceInterfaces(f, c, pick)
	f.step("probe_tags", func() (facts, error) {
		tags, err := c.Tags()
		if err != nil {
			return nil, err
		}
		out := []string{}
		for _, t := range tags {
			out = append(out, t.Name()+"|"+t.Comment()+"|"+t.Definition()+"|"+t.KernelOpts())
		}
		sort.Strings(out)
		return facts{"tags": out}, nil
	})
	staticRoutes(f, c, base, key)
	extras(f, all, base, key)
}

// staticRoutes adds a route through gomaasapi's signed client (its Controller cannot) and reads
// it back with StaticRoutes(), whose schema wants both subnets whole. Only an admin may add one.
func staticRoutes(f *flow, c gomaasapi.Controller, base, key string) {
	f.step("probe_static_routes", func() (facts, error) {
		spaces, err := c.Spaces()
		if err != nil {
			return nil, err
		}
		subnets := []gomaasapi.Subnet{}
		for _, s := range spaces {
			subnets = append(subnets, s.Subnets()...)
		}
		if len(subnets) < 2 {
			return facts{"subnets": len(subnets)}, fmt.Errorf("two subnets are needed for a route")
		}
		src, dst := subnets[0], subnets[1]
		gateway := strings.TrimSuffix(src.CIDR(), "0/24") + "254"
		client, err := gomaasapi.NewAuthenticatedClient(gomaasapi.AddAPIVersionToURL(base, "2.0"), key)
		if err != nil {
			return nil, err
		}
		params := url.Values{"source": {fmt.Sprint(src.ID())}, "destination": {dst.CIDR()}, "gateway_ip": {gateway}, "metric": {"7"}}
		_, err = client.Post(&url.URL{Path: "static-routes/"}, "", params, nil)
		out := facts{"created": err == nil}
		if svrErr, ok := errors.Cause(err).(gomaasapi.ServerError); ok && svrErr.StatusCode == http.StatusForbidden {
			out["forbidden"] = true
			err = nil
		}
		if err != nil {
			return out, fmt.Errorf("POST static-routes/: %v", err)
		}
		routes, err := c.StaticRoutes()
		if err != nil {
			return out, err
		}
		out["count"] = len(routes)
		for _, r := range routes {
			out["route"] = facts{"source": r.Source().CIDR(), "destination": r.Destination().CIDR(), "gateway_ip": r.GatewayIP(), "metric": r.Metric(), "source_vlan": r.Source().VLAN() != nil}
		}
		return out, nil
	})
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// machineDetails reads every machine's storage and interfaces through gomaasapi's lookups.
func machineDetails(f *flow, all []gomaasapi.Machine) {
	f.step("probe_block_devices", func() (facts, error) {
		disks, parts := 0, 0
		for _, m := range all {
			for _, d := range m.BlockDevices() {
				disks++
				if m.BlockDevice(d.ID()) == nil {
					return nil, fmt.Errorf("%s: BlockDevice(%d) not found", m.Hostname(), d.ID())
				}
				if d.Size() == 0 || d.Name() == "" || d.Path() == "" || d.BlockSize() == 0 {
					return nil, fmt.Errorf("%s: block device %d has size %d name %q path %q block size %d", m.Hostname(), d.ID(), d.Size(), d.Name(), d.Path(), d.BlockSize())
				}
				for _, p := range d.Partitions() {
					parts++
					if m.Partition(p.ID()) == nil {
						return nil, fmt.Errorf("%s: Partition(%d) not found", m.Hostname(), p.ID())
					}
				}
			}
		}
		return facts{"disks": disks, "partitions": parts}, nil
	})
	f.step("probe_interfaces", func() (facts, error) {
		n := 0
		for _, m := range all {
			for _, i := range m.InterfaceSet() {
				n++
				if m.Interface(i.ID()) == nil {
					return nil, fmt.Errorf("%s: Interface(%d) not found", m.Hostname(), i.ID())
				}
				if i.VLAN() == nil || i.MACAddress() == "" || i.Type() == "" {
					return nil, fmt.Errorf("%s: interface %s lacks vlan, mac or type", m.Hostname(), i.Name())
				}
				for _, l := range i.Links() {
					if l.Subnet() != nil && l.Subnet().VLAN() == nil {
						return nil, fmt.Errorf("%s: link %d subnet has no vlan", m.Hostname(), l.ID())
					}
				}
			}
		}
		return facts{"interfaces": n}, nil
	})
}

// deviceInterfaces is a device's NICs as a user manages them through gomaasapi.
func deviceInterfaces(f *flow, c gomaasapi.Controller, parent gomaasapi.Machine) {
	var subnet gomaasapi.Subnet = f.subnet
	if subnet == nil {
		f.skip("probe_device_interfaces", "no subnet")
		return
	}
	f.step("probe_device_interfaces", func() (facts, error) {
		d, err := c.CreateDevice(gomaasapi.CreateDeviceArgs{Hostname: "probe-dev", MACAddresses: []string{"52:54:00:aa:cc:01"}, Parent: parent.SystemID()})
		if err != nil {
			return nil, fmt.Errorf("create: %v", err)
		}
		defer d.Delete()
		out := facts{}
		iface, err := d.CreateInterface(gomaasapi.CreateInterfaceArgs{Name: "eth1", MACAddress: "52:54:00:aa:cc:02", VLAN: subnet.VLAN(), Tags: []string{"probe", "second"}, MTU: 9000})
		if err != nil {
			return out, fmt.Errorf("create_physical: %v", err)
		}
		out["created"] = facts{"name": iface.Name(), "tags": iface.Tags(), "mtu": iface.EffectiveMTU(), "type": iface.Type(), "enabled": iface.Enabled()}
		if iface.Name() != "eth1" || !hasString(iface.Tags(), "second") || iface.EffectiveMTU() != 9000 {
			return out, fmt.Errorf("create_physical answered %v", out["created"])
		}
		if err := iface.Update(gomaasapi.UpdateInterfaceArgs{Name: "eth9", MACAddress: "52:54:00:aa:cc:09"}); err != nil {
			return out, fmt.Errorf("update: %v", err)
		}
		if iface.Name() != "eth9" || iface.MACAddress() != "52:54:00:aa:cc:09" {
			return out, fmt.Errorf("update answered name %q mac %q", iface.Name(), iface.MACAddress())
		}
		for _, mode := range []gomaasapi.InterfaceLinkMode{gomaasapi.LinkModeStatic, gomaasapi.LinkModeDHCP, gomaasapi.LinkModeLinkUp} {
			if err := iface.LinkSubnet(gomaasapi.LinkSubnetArgs{Mode: mode, Subnet: subnet}); err != nil {
				return out, fmt.Errorf("link_subnet %s: %v", mode, err)
			}
			links := iface.Links()
			if len(links) != 1 || links[0].Subnet() == nil || links[0].Subnet().ID() != subnet.ID() {
				return out, fmt.Errorf("link_subnet %s: %d links", mode, len(links))
			}
			out[string(mode)] = facts{"mode": links[0].Mode(), "ip": links[0].IPAddress()}
			if err := iface.UnlinkSubnet(subnet); err != nil {
				return out, fmt.Errorf("unlink_subnet after %s: %v", mode, err)
			}
			if len(iface.Links()) != 0 {
				return out, fmt.Errorf("unlink_subnet after %s left %d links", mode, len(iface.Links()))
			}
		}
		if err := iface.LinkSubnet(gomaasapi.LinkSubnetArgs{Mode: gomaasapi.LinkModeStatic, Subnet: subnet, DefaultGateway: true}); err != nil {
			return out, fmt.Errorf("link_subnet STATIC default_gateway: %v", err)
		}
		kids, err := parent.Devices(gomaasapi.DevicesArgs{Hostname: []string{"probe-dev"}})
		if err != nil {
			return out, fmt.Errorf("machine.Devices: %v", err)
		}
		if len(kids) != 1 || len(kids[0].InterfaceSet()) != 2 {
			return out, fmt.Errorf("machine.Devices(hostname=probe-dev): %d devices", len(kids))
		}
		for _, args := range []gomaasapi.DevicesArgs{{SystemIDs: []string{d.SystemID()}}, {MACAddresses: []string{"52:54:00:aa:cc:01"}}, {Domain: "maas", Hostname: []string{"probe-dev"}}, {Zone: d.Zone().Name(), Hostname: []string{"probe-dev"}}} {
			got, err := c.Devices(args)
			if err != nil {
				return out, fmt.Errorf("devices %+v: %v", args, err)
			}
			if len(got) != 1 || got[0].SystemID() != d.SystemID() {
				return out, fmt.Errorf("devices %+v: %d devices", args, len(got))
			}
		}
		if err := iface.Delete(); err != nil {
			return out, fmt.Errorf("delete interface: %v", err)
		}
		return out, nil
	})
}
