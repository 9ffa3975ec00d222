import { describe, expect, it } from "vitest";
import { dnsSettings, type HostView, pipSettings } from "./host-settings.ts";

function host(files: Record<string, string>, env: Record<string, string> = {}): HostView {
  return {
    env,
    home: "/home/ada",
    exists: (f) => f in files,
    read: (f) => files[f],
  };
}

describe("the host's settings carried into the Python root", () => {
  it("DNS: resolv.conf and hosts at the same paths, when the host has them", () => {
    expect(dnsSettings(host({ "/etc/resolv.conf": "", "/etc/hosts": "" })).binds).toEqual([
      { source: "/etc/resolv.conf", target: "/etc/resolv.conf" },
      { source: "/etc/hosts", target: "/etc/hosts" },
    ]);
    expect(dnsSettings(host({ "/etc/hosts": "" })).binds).toEqual([
      { source: "/etc/hosts", target: "/etc/hosts" },
    ]);
  });

  it("pip: site and user config files, and the host paths they name (cert, find-links)", () => {
    const s = pipSettings(
      host({
        "/etc/pip.conf":
          "[global]\ncert = /etc/corp/ca.pem\nfind-links =\n    /srv/wheels file:///opt/w https://x/y\n",
        "/home/ada/.config/pip/pip.conf": "[install]\nclient-cert: /home/ada/me.pem\n",
        "/etc/corp/ca.pem": "",
        "/home/ada/me.pem": "",
        "/opt/w": "",
        "/etc/ssl/certs/ca-certificates.crt": "",
      }),
    );
    expect(s.binds).toEqual([
      { source: "/etc/pip.conf", target: "/etc/pip.conf" },
      { source: "/etc/corp/ca.pem", target: "/etc/corp/ca.pem" },
      // /srv/wheels does not exist on the host: nothing to mount.
      { source: "/opt/w", target: "/opt/w" },
      // The user's config lands in the root's home (programs there run as root).
      { source: "/home/ada/.config/pip/pip.conf", target: "/root/.config/pip/pip.conf" },
      { source: "/home/ada/me.pem", target: "/home/ada/me.pem" },
      { source: "/etc/ssl/certs/ca-certificates.crt", target: "/etc/ssl/certs/ca-certificates.crt" },
    ]);
    expect(s.env).toEqual([]);
  });

  it("pip: PIP_* and proxy variables pass through by name; the paths they name are mounted", () => {
    const s = pipSettings(
      host(
        { "/ca.pem": "", "/cfg/pip.ini": "" },
        {
          PIP_CERT: "/ca.pem",
          PIP_CONFIG_FILE: "/cfg/pip.ini",
          PIP_INDEX_URL: "https://user:secret@mirror/simple",
          https_proxy: "http://u:p@proxy:3128",
          NODE_OPTIONS: "--x",
          PIP_EMPTY: "",
        },
      ),
    );
    expect(s.env.map((e) => [e.name, e.fromHost])).toEqual([
      ["PIP_CERT", true],
      ["PIP_CONFIG_FILE", true],
      ["PIP_INDEX_URL", true],
      ["https_proxy", true],
    ]);
    expect(s.binds.map((b) => b.source)).toEqual(["/ca.pem", "/cfg/pip.ini"]);
    // The log line is built from names: no value (credentials in URLs) is in them.
    expect(s.names.join(" ")).not.toMatch(/secret|u:p/);
  });

  it("XDG_CONFIG_HOME moves the user's config file", () => {
    const s = pipSettings(host({ "/x/pip/pip.conf": "" }, { XDG_CONFIG_HOME: "/x" }));
    expect(s.binds).toEqual([{ source: "/x/pip/pip.conf", target: "/root/.config/pip/pip.conf" }]);
  });
});
