// The places juju reads: zones, resource pools, domains, spaces and subnets, fabrics and VLANs,
// boot resources, static routes, tags.

package main

import (
	"encoding/json"
	"fmt"
	neturl "net/url"
	"sort"
	"strings"

	"github.com/juju/gomaasapi"
)

func places(f *flow, c gomaasapi.Controller) {
	f.step("zones", func() (facts, error) {
		zones, err := c.Zones()
		names := []string{}
		for _, z := range zones {
			names = append(names, z.Name())
		}
		return facts{"names": names}, err
	})
	// gomaasapi's Pools() asks for pools/, which MAAS does not serve (its resource pools are at
	// resourcepools/): a real MAAS answers 404, and so must a faithful simulator.
	f.step("pools_is_not_maas", func() (facts, error) {
		_, err := c.Pools()
		if err == nil || !strings.Contains(err.Error(), "404") {
			return nil, fmt.Errorf("GET pools/ should be 404 as in MAAS, got %v", err)
		}
		return nil, nil
	})
	f.step("domains", func() (facts, error) {
		domains, err := c.Domains()
		names := []string{}
		for _, d := range domains {
			names = append(names, d.Name())
		}
		return facts{"names": names}, err
	})
	f.step("spaces", func() (facts, error) {
		spaces, err := c.Spaces()
		names := []string{}
		subnets := []string{}
		for _, s := range spaces {
			if f.space == "" {
				f.space = s.Name()
			}
			names = append(names, s.Name())
			for _, sn := range s.Subnets() {
				if f.subnet == nil {
					f.subnet = sn
				}
				subnets = append(subnets, sn.CIDR())
			}
		}
		return facts{"names": names, "subnets": subnets}, err
	})
	f.step("fabrics", func() (facts, error) {
		fabrics, err := c.Fabrics()
		names := []string{}
		vlans := []int{}
		for _, fa := range fabrics {
			names = append(names, fa.Name())
			for _, v := range fa.VLANs() {
				vlans = append(vlans, v.VID())
			}
		}
		return facts{"names": names, "vids": vlans}, err
	})
	// juju reads the architectures MAAS has images for, and static routes for its network config.
	f.step("boot_resources", func() (facts, error) {
		resources, err := c.BootResources()
		names := []string{}
		for _, r := range resources {
			names = append(names, r.Name()+"/"+r.Architecture())
		}
		if err == nil && len(names) == 0 {
			err = fmt.Errorf("no boot resources: a MAAS that can deploy has at least one synced image")
		}
		return facts{"names": names}, err
	})
	f.step("static_routes", func() (facts, error) {
		routes, err := c.StaticRoutes()
		return facts{"count": len(routes)}, err
	})
	f.step("tags", func() (facts, error) {
		tags, err := c.Tags()
		names := []string{}
		for _, t := range tags {
			names = append(names, t.Name())
		}
		sort.Strings(names)
		return facts{"names": names}, err
	})
}

// resourcePools reads resourcepools/ through gomaasapi's signed client, since its Controller
// has no working call for it.
func resourcePools(f *flow, base, key string) {
	f.step("resourcepools", func() (facts, error) {
		client, err := gomaasapi.NewAuthenticatedClient(gomaasapi.AddAPIVersionToURL(base, "2.0"), key)
		if err != nil {
			return nil, err
		}
		body, err := client.Get(&neturl.URL{Path: "resourcepools/"}, "", nil)
		if err != nil {
			return nil, err
		}
		var pools []struct {
			ID          *int    `json:"id"`
			Name        *string `json:"name"`
			Description *string `json:"description"`
			ResourceURI *string `json:"resource_uri"`
		}
		if err := json.Unmarshal(body, &pools); err != nil {
			return nil, fmt.Errorf("resourcepools/: %v", err)
		}
		names := []string{}
		for i, p := range pools {
			if p.ID == nil || p.Name == nil || p.Description == nil || p.ResourceURI == nil {
				return facts{"names": names}, fmt.Errorf("resourcepools/ [%d]: id, name, description and resource_uri are all required", i)
			}
			names = append(names, *p.Name)
		}
		return facts{"names": names}, nil
	})
}
