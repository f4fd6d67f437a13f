import { BlockList, isIPv6 } from 'node:net';
import type { K8sObject } from './helm.js';

/**
 * Decides whether a connection is allowed under a set of NetworkPolicies, following the
 * networking.k8s.io/v1 semantics: a pod selected by any policy with Egress (Ingress) in its
 * policyTypes may only send (receive) what one of those policies' rules allows; rules are
 * additive; an absent `to`/`from` is every peer, absent `ports` every port; a named port is
 * the destination pod's container port of that name. Only what the chart uses is modelled
 * (matchLabels, namespaceSelector {} or matchLabels, ipBlock with except); anything else throws
 * rather than guessing. It models the policy objects, not a CNI: see docs/deploy.md.
 */
export interface Pod {
  namespace: string;
  namespaceLabels?: Record<string, string>;
  labels: Record<string, string>;
  ports: Record<string, number>;
}
export type Endpoint = { pod: Pod } | { ip: string };

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: unknown;
}
interface Peer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface Rule {
  ports?: { port?: number | string; protocol?: string }[];
  to?: Peer[];
  from?: Peer[];
}

function selects(selector: Selector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  if (selector.matchExpressions) throw new Error('matchExpressions are not modelled');
  return Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
}

function inBlock(ip: string, block: { cidr: string; except?: string[] }): boolean {
  const family = (cidr: string) => (isIPv6(cidr.split('/')[0]!) ? 'ipv6' : 'ipv4');
  const list = (cidrs: string[]) => {
    const l = new BlockList();
    for (const c of cidrs) l.addSubnet(c.split('/')[0]!, Number(c.split('/')[1]), family(c));
    return l;
  };
  const type = isIPv6(ip) ? 'ipv6' : 'ipv4';
  if (family(block.cidr) !== type) return false;
  return list([block.cidr]).check(ip, type) && !list(block.except ?? []).check(ip, type);
}

function peerMatches(peer: Peer, policyNamespace: string, other: Endpoint): boolean {
  if (peer.ipBlock) return 'ip' in other && inBlock(other.ip, peer.ipBlock);
  if (!('pod' in other)) return false;
  const nsOk = peer.namespaceSelector ? selects(peer.namespaceSelector, other.pod.namespaceLabels ?? {}) : other.pod.namespace === policyNamespace;
  return nsOk && selects(peer.podSelector, other.pod.labels);
}

function portMatches(rule: Rule, port: number, protocol: string, dest: Endpoint): boolean {
  if (!rule.ports?.length) return true;
  return rule.ports.some((p) => {
    if ((p.protocol ?? 'TCP') !== protocol) return false;
    if (p.port === undefined) return true;
    if (typeof p.port === 'number') return p.port === port;
    return 'pod' in dest && dest.pod.ports[p.port] === port;
  });
}

function direction(policies: K8sObject[], pod: Pod, type: 'Ingress' | 'Egress', other: Endpoint, port: number, protocol: string, dest: Endpoint): boolean {
  const applying = policies.filter(
    (p) => (p.metadata as { namespace?: string }).namespace === pod.namespace && p.spec.policyTypes.includes(type) && selects(p.spec.podSelector, pod.labels),
  );
  if (!applying.length) return true;
  return applying.some((p) =>
    ((type === 'Egress' ? p.spec.egress : p.spec.ingress) ?? []).some((rule: Rule) => {
      const peers = type === 'Egress' ? rule.to : rule.from;
      return portMatches(rule, port, protocol, dest) && (!peers?.length || peers.some((peer) => peerMatches(peer, pod.namespace, other)));
    }),
  );
}

/** Whether `from` may open a connection to `to` on `port` under `policies`. */
export function allowed(policies: K8sObject[], from: Endpoint, to: Endpoint, port: number, protocol = 'TCP'): boolean {
  const egress = 'pod' in from ? direction(policies, from.pod, 'Egress', to, port, protocol, to) : true;
  const ingress = 'pod' in to ? direction(policies, to.pod, 'Ingress', from, port, protocol, to) : true;
  return egress && ingress;
}

/** The pods a rendered Deployment or Pod makes, as the policies see them. */
export function podOf(obj: K8sObject, namespace: string): Pod {
  const spec = obj.kind === 'Pod' ? obj.spec : obj.spec.template.spec;
  const labels = obj.kind === 'Pod' ? obj.metadata.labels! : obj.spec.template.metadata.labels;
  const ports: Record<string, number> = {};
  for (const c of spec.containers) for (const p of c.ports ?? []) if (p.name) ports[p.name] = p.containerPort;
  return { namespace, labels, ports };
}
