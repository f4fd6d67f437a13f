import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';

/**
 * Checks an object against the Kubernetes OpenAPI schema of its kind (kubernetes-models, made
 * from the API server's published schemas; the Prometheus Operator's for ServiceMonitor and
 * PrometheusRule). It catches wrong types, missing required fields and bad enums; it does not
 * catch unknown fields, nor what only the API server or a controller decides (docs/deploy.md).
 */
// Each model takes its own kind's shape.
type Model = new (data: any) => { validate(): void };
const MODELS: Record<string, Model> = {
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Pod': Pod,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

/** The schema's complaints about `obj` (empty when it conforms). */
export function validateK8s(obj: { apiVersion: string; kind: string }): string[] {
  const model = MODELS[`${obj.apiVersion}/${obj.kind}`];
  if (!model) return [`no schema for ${obj.apiVersion} ${obj.kind}`];
  try {
    new model(obj).validate();
    return [];
  } catch (err) {
    return String((err as Error).message)
      .split('\n')
      .filter(Boolean);
  }
}
