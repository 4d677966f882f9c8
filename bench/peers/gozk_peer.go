// SPDX-License-Identifier: Apache-2.0

// go-zookeeper's Lock in the peer protocol of bench/run.sh (see
// bench/peers/README.md): one round of each measure, one session per worker.
package main

import (
	"fmt"
	"io/ioutil"
	"log"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/samuel/go-zookeeper/zk"
)

var connect []string

func open() *zk.Conn {
	quiet := log.New(ioutil.Discard, "", 0)
	c, ev, err := zk.Connect(connect, 10*time.Second, zk.WithLogger(quiet))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gozk_peer:", err)
		os.Exit(1)
	}
	for e := range ev { // wait for the session before timing anything
		if e.State == zk.StateHasSession {
			break
		}
	}
	return c
}

func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return -1
	}
	sort.Float64s(v)
	return v[int(q*float64(len(v)-1))]
}

// run times n workers; shared: one lock path for all, else one path each.
func run(root, measure string, n int, shared bool, roundMs int) {
	conns := make([]*zk.Conn, n)
	for i := range conns {
		conns[i] = open()
	}
	var mu sync.Mutex
	var lastRelease time.Time
	var handoffs []float64
	count := 0
	start := time.Now()
	warm := start.Add(time.Duration(roundMs/5) * time.Millisecond)
	end := warm.Add(time.Duration(roundMs) * time.Millisecond)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		path := fmt.Sprintf("%s/%s-%d", root, measure, n)
		if !shared {
			path = fmt.Sprintf("%s/%d", path, i)
		}
		l := zk.NewLock(conns[i], path, zk.WorldACL(zk.PermAll))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				if err := l.Lock(); err != nil {
					fmt.Fprintln(os.Stderr, "gozk_peer: lock:", err)
					os.Exit(1)
				}
				t := time.Now()
				mu.Lock()
				if t.After(warm) && t.Before(end) {
					count++
					if shared && !lastRelease.IsZero() {
						handoffs = append(handoffs, float64(t.Sub(lastRelease).Nanoseconds())/1e3)
					}
				}
				if shared {
					lastRelease = time.Now()
				}
				mu.Unlock()
				if err := l.Unlock(); err != nil {
					fmt.Fprintln(os.Stderr, "gozk_peer: unlock:", err)
					os.Exit(1)
				}
			}
		}()
	}
	wg.Wait()
	for _, c := range conns {
		c.Close()
	}
	rate := float64(count) / (float64(roundMs) / 1e3)
	p50, p99 := -1.0, -1.0
	if shared && n > 1 {
		p50, p99 = quantile(handoffs, 0.5), quantile(handoffs, 0.99)
	}
	fmt.Printf("M,%s,%d,%.1f,%.0f,%.0f\n", measure, n, rate, p50, p99)
}

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: gozk_peer CONNECT ROOT ROUND_MS [MEASURE:N...]")
		os.Exit(2)
	}
	connect = strings.Split(os.Args[1], ",")
	roundMs, _ := strconv.Atoi(os.Args[3])
	for _, m := range os.Args[4:] {
		kv := strings.SplitN(m, ":", 2)
		n, _ := strconv.Atoi(kv[1])
		run(os.Args[2], kv[0], n, kv[0] != "paths", roundMs)
	}
}
