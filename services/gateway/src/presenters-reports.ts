import type { reports } from '@mp/contracts';

/** API shapes (snake_case JSON) of the reports contract messages. */
export const presentReports = {
  template: (t: reports.Template) => ({
    id: t.id,
    name: t.name,
    description: t.description ?? null,
    sections: t.sections,
    // empty in the service: every point of the project
    point_ids: t.pointIds.length ? t.pointIds : null,
    formats: t.formats,
    created_by: t.createdBy ?? null,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
    version: t.version,
  }),
  report: (r: reports.Report) => ({
    id: r.id,
    project_id: r.projectId,
    project_name: r.projectName,
    template_id: r.templateId,
    title: r.title,
    from: r.from,
    to: r.to,
    time_zone: r.timeZone,
    status: r.status,
    files: r.files.map((f) => ({ format: f.format, size_bytes: f.sizeBytes, sha256: f.sha256 })),
    record_count: r.recordCount,
    data_as_of: r.dataAsOf ?? null,
    generated_at: r.generatedAt ?? null,
    approved_by: r.approvedBy ?? null,
    approved_at: r.approvedAt ?? null,
    comment: r.comment ?? null,
    rejected_by: r.rejectedBy ?? null,
    rejected_at: r.rejectedAt ?? null,
    reason: r.reason ?? null,
    // why a failed report failed (a six-digit code of the error catalogue and its detail)
    failure: r.failureCode ? { code: Number(r.failureCode), detail: r.failureDetail ?? '' } : null,
    created_by: r.createdBy ?? null,
    created_at: r.createdAt,
  }),
};
