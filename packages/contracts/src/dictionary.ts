/**
 * The dictionary form of RecordColumns and WriteRecordsResult (proto/monitoring_data.proto):
 * each distinct value said once, in order of first appearance, and each record naming its value
 * by index. Both ends that write the form (the gateway's request, monitoring-data's answer) build
 * it with this.
 */
export class Dictionary {
  /** The distinct values, in order of first appearance (the message's dictionary field). */
  readonly values: string[] = [];
  private readonly at = new Map<string, number>();

  has(value: string): boolean {
    return this.at.has(value);
  }

  /** The value's index, adding it when it is new. */
  indexOf(value: string): number {
    let k = this.at.get(value);
    if (k === undefined) this.at.set(value, (k = this.values.push(value) - 1));
    return k;
  }
}
