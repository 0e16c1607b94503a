// Devices on their own: create with a MAC under a parent, list by hostname, delete.

package main

import (
	"fmt"

	"github.com/juju/gomaasapi"
)

// devices is juju's container addressing: a device with a MAC under a parent machine.
func devices(f *flow, c gomaasapi.Controller, all []gomaasapi.Machine) {
	parent := ""
	if len(all) > 0 {
		parent = all[0].SystemID()
	}
	var d gomaasapi.Device
	if !f.step("create_device", func() (facts, error) {
		var err error
		d, err = c.CreateDevice(gomaasapi.CreateDeviceArgs{Hostname: "maasflow-dev", MACAddresses: []string{"52:54:00:aa:bb:01"}, Parent: parent})
		if err != nil {
			return nil, err
		}
		return facts{"system_id": d.SystemID(), "hostname": d.Hostname(), "fqdn": d.FQDN(), "parent": d.Parent(), "interfaces": len(d.InterfaceSet())}, nil
	}) {
		f.skip("devices", "create_device failed")
		f.skip("delete_device", "create_device failed")
		return
	}
	f.step("devices", func() (facts, error) {
		got, err := c.Devices(gomaasapi.DevicesArgs{Hostname: []string{"maasflow-dev"}})
		if err != nil {
			return nil, err
		}
		if len(got) != 1 || got[0].SystemID() != d.SystemID() {
			return facts{"count": len(got)}, fmt.Errorf("devices?hostname=maasflow-dev: expected the created device")
		}
		return facts{"parent": got[0].Parent(), "macs": len(got[0].InterfaceSet())}, nil
	})
	f.step("delete_device", func() (facts, error) {
		if err := d.Delete(); err != nil {
			return nil, err
		}
		got, err := c.Devices(gomaasapi.DevicesArgs{Hostname: []string{"maasflow-dev"}})
		if err != nil {
			return nil, err
		}
		if len(got) != 0 {
			return nil, fmt.Errorf("the device is still listed after DELETE")
		}
		return nil, nil
	})
}
