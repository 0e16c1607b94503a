// Calls gomaasapi's Controller does not make but its legacy MAASObject client (real OAuth signing)
// reaches: a machine's details decoded with mgo's BSON (what juju's own test server encodes with),
// power_parameters, and ipranges/ created, read, updated, listed and deleted.

package main

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/juju/errors"
	"github.com/juju/gomaasapi"
	"gopkg.in/mgo.v2/bson"
)

func statusOf(err error) int {
	if svrErr, ok := errors.Cause(err).(gomaasapi.ServerError); ok {
		return svrErr.StatusCode
	}
	return 0
}

func extras(f *flow, all []gomaasapi.Machine, base, key string) {
	client, err := gomaasapi.NewAuthenticatedClient(gomaasapi.AddAPIVersionToURL(base, "2.0"), key)
	if err != nil || len(all) == 0 {
		f.skip("probe_details_bson", "no client or no machine")
		return
	}
	maas := gomaasapi.NewMAAS(*client)
	m := all[0]
	f.step("probe_details_bson", func() (facts, error) {
		raw, err := client.Get(&url.URL{Path: "machines/" + m.SystemID() + "/"}, "details", nil)
		if err != nil {
			return nil, err
		}
		doc := map[string]interface{}{}
		if err := bson.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("bson.Unmarshal: %v", err)
		}
		out := facts{"keys": len(doc)}
		for _, name := range []string{"lshw", "lldp"} {
			b, ok := doc[name].([]byte)
			if !ok {
				return out, fmt.Errorf("%s is %T, not binary", name, doc[name])
			}
			out[name+"_bytes"] = len(b)
			out[name+"_head"] = string(b[:20])
		}
		return out, nil
	})
	f.step("probe_power_parameters", func() (facts, error) {
		params, err := maas.GetSubObject("machines").GetSubObject(m.SystemID()).CallGet("power_parameters", nil)
		if status := statusOf(err); status == http.StatusForbidden {
			return facts{"forbidden": true}, nil
		}
		if err != nil {
			return nil, err
		}
		got, err := params.GetMap()
		if err != nil {
			return nil, err
		}
		_, hasPass := got["power_pass"]
		driver, _ := got["power_driver"].GetString()
		return facts{"forbidden": false, "has_power_pass": hasPass, "power_driver": driver}, nil
	})
	f.step("probe_ipranges", func() (facts, error) {
		ranges := maas.GetSubObject("ipranges")
		created, err := ranges.Post(url.Values{"type": {"reserved"}, "start_ip": {"10.10.2.240"}, "end_ip": {"10.10.2.245"}, "comment": {"gomaasapi"}})
		if err != nil {
			return nil, fmt.Errorf("create: %v", err)
		}
		obj, err := created.GetMAASObject()
		if err != nil {
			return nil, fmt.Errorf("create answered no resource_uri: %v", err)
		}
		read, err := obj.Get()
		if err != nil {
			return nil, fmt.Errorf("read: %v", err)
		}
		updated, err := read.Update(url.Values{"comment": {"gomaasapi updated"}, "end_ip": {"10.10.2.246"}})
		if err != nil {
			return nil, fmt.Errorf("update: %v", err)
		}
		comment, _ := updated.GetField("comment")
		end, _ := updated.GetField("end_ip")
		out := facts{"comment": comment, "end_ip": end}
		_, err = ranges.Post(url.Values{"type": {"reserved"}, "start_ip": {"10.10.2.246"}, "end_ip": {"10.10.2.248"}})
		out["overlap_status"] = statusOf(err)
		listed, err := ranges.CallGet("", nil)
		if err != nil {
			return out, fmt.Errorf("list: %v", err)
		}
		items, err := listed.GetArray()
		if err != nil {
			return out, err
		}
		out["listed"] = len(items)
		if err := updated.Delete(); err != nil {
			return out, fmt.Errorf("delete: %v", err)
		}
		_, err = obj.Get()
		out["after_delete_status"] = statusOf(err)
		return out, nil
	})
}
