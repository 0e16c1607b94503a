// An allocated machine's life as juju drives it: deploy, owner data, a container device, release.

package main

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/juju/gomaasapi"
)

// lifecycle is juju's StartInstance and StopInstances: filter by agent, deploy with user data,
// wait for Deployed, tag with owner data, release in bulk and wait for Ready.
func lifecycle(f *flow, c gomaasapi.Controller, m gomaasapi.Machine, o options) {
	id := m.SystemID()
	f.step("machines_by_agent_name", func() (facts, error) {
		got, err := c.Machines(gomaasapi.MachinesArgs{AgentName: o.agent})
		if err != nil {
			return nil, err
		}
		if len(got) != 1 || got[0].SystemID() != id {
			return facts{"hostnames": hostnames(got)}, fmt.Errorf("agent_name %q: expected only %s", o.agent, m.Hostname())
		}
		return facts{"hostnames": hostnames(got)}, nil
	})
	userData := base64.StdEncoding.EncodeToString([]byte("#cloud-config\nruncmd:\n  - echo maasflow\n"))
	started := f.step("start", func() (facts, error) {
		err := m.Start(gomaasapi.StartArgs{UserData: userData, DistroSeries: o.series, Comment: "maasflow deploy"})
		if err != nil {
			return nil, err
		}
		return facts{"status": m.StatusName(), "distro_series": m.DistroSeries(), "os": m.OperatingSystem()}, nil
	})
	if started {
		f.step("wait_deployed", func() (facts, error) {
			seen, last, err := waitFor(c, id, "Deployed", o)
			out := facts{"statuses": seen}
			if last != nil {
				out["power_state"] = last.PowerState()
				out["distro_series"] = last.DistroSeries()
				out["os"] = last.OperatingSystem()
				out["ip_addresses"] = last.IPAddresses()
				if err == nil && last.PowerState() != "on" {
					err = fmt.Errorf("Deployed with power_state %q, expected on", last.PowerState())
				}
				if err == nil && last.DistroSeries() != o.series {
					err = fmt.Errorf("Deployed with distro_series %q, expected %q", last.DistroSeries(), o.series)
				}
			}
			return out, err
		})
	} else {
		f.skip("wait_deployed", "start failed")
	}
	owner := map[string]string{"juju-model-uuid": "00000000-0000-4000-8000-000000000001", "juju-machine-id": "0"}
	f.step("set_owner_data", func() (facts, error) {
		if err := m.SetOwnerData(owner); err != nil {
			return nil, err
		}
		return facts{"owner_data": m.OwnerData()}, nil
	})
	// MAAS has no owner-data filter: juju (and gomaasapi) filter the listed machines client-side,
	// so this checks that the listing carries owner_data.
	f.step("machines_by_owner_data", func() (facts, error) {
		got, err := c.Machines(gomaasapi.MachinesArgs{OwnerData: owner})
		if err != nil {
			return nil, err
		}
		if len(got) != 1 || got[0].SystemID() != id {
			return facts{"hostnames": hostnames(got)}, fmt.Errorf("owner data: expected only %s", m.Hostname())
		}
		return facts{"owner_data": got[0].OwnerData()}, nil
	})
	containerDevice(f, m)
	if o.pause {
		_ = f.out.Encode(facts{"step": "pause", "ok": true, "system_id": id})
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			f.step("resume", func() (facts, error) { return nil, fmt.Errorf("stdin closed while paused: %v", err) })
			return
		}
	}
	f.step("release_unknown", func() (facts, error) {
		err := c.ReleaseMachines(gomaasapi.ReleaseMachinesArgs{SystemIDs: []string{"nosuch"}})
		if err == nil {
			return nil, fmt.Errorf("releasing an unknown system_id succeeded")
		}
		if !gomaasapi.IsBadRequestError(err) {
			return facts{"got": err.Error()}, fmt.Errorf("expected a BadRequestError (400), got %T", err)
		}
		return nil, nil
	})
	if f.step("release", func() (facts, error) {
		return nil, c.ReleaseMachines(gomaasapi.ReleaseMachinesArgs{SystemIDs: []string{id}, Comment: "maasflow release"})
	}) {
		f.step("wait_released", func() (facts, error) {
			seen, last, err := waitFor(c, id, "Ready", o)
			out := facts{"statuses": seen}
			if last != nil {
				out["owner_data"] = last.OwnerData()
				if err == nil && len(last.OwnerData()) != 0 {
					err = fmt.Errorf("owner data %v survived release", last.OwnerData())
				}
			}
			return out, err
		})
	} else {
		f.skip("wait_released", "release failed")
	}
}

// containerDevice is juju's LXD container on a MAAS machine: a device under the machine with one
// interface renamed, put on the subnet's VLAN and linked to the subnet (an address from MAAS).
func containerDevice(f *flow, m gomaasapi.Machine) {
	subnet := f.subnet
	if boot := m.BootInterface(); boot != nil && len(boot.Links()) > 0 && boot.Links()[0].Subnet() != nil {
		subnet = boot.Links()[0].Subnet()
	}
	if subnet == nil {
		f.skip("machine_create_device", "no subnet listed under spaces/ and none on the machine's boot interface")
		return
	}
	f.step("machine_create_device", func() (facts, error) {
		d, err := m.CreateDevice(gomaasapi.CreateMachineDeviceArgs{Hostname: "juju-machine-0-lxd-0", InterfaceName: "eth0", MACAddress: "52:54:00:aa:bb:02", Subnet: subnet})
		if err != nil {
			return facts{"subnet": subnet.CIDR()}, err
		}
		out := facts{"system_id": d.SystemID(), "parent": d.Parent(), "subnet": subnet.CIDR()}
		children, err := m.Devices(gomaasapi.DevicesArgs{})
		if err != nil {
			return out, err
		}
		found := false
		for _, c := range children {
			found = found || c.SystemID() == d.SystemID()
		}
		out["children"] = len(children)
		if !found {
			return out, fmt.Errorf("machine.Devices() does not list the device just created under it")
		}
		ifaces := d.InterfaceSet()
		if len(ifaces) != 1 {
			return out, fmt.Errorf("device has %d interfaces, expected 1", len(ifaces))
		}
		out["interface"] = ifaces[0].Name()
		links := ifaces[0].Links()
		if ifaces[0].Name() != "eth0" || len(links) != 1 {
			return out, fmt.Errorf("device interface %q with %d links, expected eth0 linked once", ifaces[0].Name(), len(links))
		}
		ip := links[0].IPAddress()
		out["ip_address"] = ip
		out["mode"] = links[0].Mode()
		_, cidr, err := net.ParseCIDR(subnet.CIDR())
		if err != nil {
			return out, fmt.Errorf("subnet cidr %q: %v", subnet.CIDR(), err)
		}
		if addr := net.ParseIP(ip); addr == nil || !cidr.Contains(addr) {
			return out, fmt.Errorf("link_subnet (mode STATIC) gave address %q, not one in %s", ip, subnet.CIDR())
		}
		return out, d.Delete()
	})
}

// waitFor polls the machine until it reaches status or the timeout passes; it returns the
// distinct statuses seen in order.
func waitFor(c gomaasapi.Controller, id, status string, o options) ([]string, gomaasapi.Machine, error) {
	seen := []string{}
	deadline := time.Now().Add(o.timeout)
	for {
		got, err := c.Machines(gomaasapi.MachinesArgs{SystemIDs: []string{id}})
		if err != nil {
			return seen, nil, err
		}
		if len(got) != 1 {
			return seen, nil, fmt.Errorf("machine %s: listed %d times", id, len(got))
		}
		m := got[0]
		if len(seen) == 0 || seen[len(seen)-1] != m.StatusName() {
			seen = append(seen, m.StatusName())
		}
		if m.StatusName() == status {
			return seen, m, nil
		}
		if time.Now().After(deadline) {
			return seen, m, fmt.Errorf("machine %s: not %s after %s (last %q: %s)", id, status, o.timeout, m.StatusName(), m.StatusMessage())
		}
		time.Sleep(o.poll)
	}
}
