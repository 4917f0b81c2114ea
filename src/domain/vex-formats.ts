// How a triage decision (docs/triage.md) reads in each VEX format (docs/vex.md). Pure.
//
// CSAF 2.0 and OpenVEX use CISA's five justifications as they are; CycloneDX has its own nine
// (analysis.justification). The mapping both ways is the one OpenVEX's tooling applies between the two: each of
// CycloneDX's nine reads as one of CISA's five, and each of CISA's five is written as the CycloneDX value closest to
// it. The exact CISA value also travels in the CycloneDX vulnerability's properties, so an export read back keeps it.
import type { DecisionStatus, Justification } from './triage.ts';

/** CSAF 2.0 product_status list for each status. */
export const CSAF_STATUS: Record<
  DecisionStatus,
  'known_affected' | 'known_not_affected' | 'fixed' | 'under_investigation'
> = {
  affected: 'known_affected',
  not_affected: 'known_not_affected',
  fixed: 'fixed',
  under_investigation: 'under_investigation',
};

export const CYCLONEDX_STATES = [
  'resolved',
  'resolved_with_pedigree',
  'exploitable',
  'in_triage',
  'false_positive',
  'not_affected',
] as const;
export type CycloneDxState = (typeof CYCLONEDX_STATES)[number];

/** CycloneDX analysis.state written for each status. */
export const CYCLONEDX_STATE: Record<DecisionStatus, CycloneDxState> = {
  affected: 'exploitable',
  not_affected: 'not_affected',
  fixed: 'resolved',
  under_investigation: 'in_triage',
};

/**
 * The status a CycloneDX analysis.state reads as: resolved_with_pedigree is fixed; false_positive (the finding does
 * not apply) is not_affected.
 */
export const STATUS_OF_CYCLONEDX: Record<CycloneDxState, DecisionStatus> = {
  resolved: 'fixed',
  resolved_with_pedigree: 'fixed',
  exploitable: 'affected',
  in_triage: 'under_investigation',
  false_positive: 'not_affected',
  not_affected: 'not_affected',
};

export const CYCLONEDX_JUSTIFICATIONS = [
  'code_not_present',
  'code_not_reachable',
  'requires_configuration',
  'requires_dependency',
  'requires_environment',
  'protected_by_compiler',
  'protected_at_runtime',
  'protected_at_perimeter',
  'protected_by_mitigating_control',
] as const;
export type CycloneDxJustification = (typeof CYCLONEDX_JUSTIFICATIONS)[number];

/** CISA's justification written as CycloneDX's. */
export const CYCLONEDX_JUSTIFICATION: Record<Justification, CycloneDxJustification> = {
  component_not_present: 'requires_dependency',
  vulnerable_code_not_present: 'code_not_present',
  vulnerable_code_not_in_execute_path: 'code_not_reachable',
  vulnerable_code_cannot_be_controlled_by_adversary: 'requires_environment',
  inline_mitigations_already_exist: 'protected_by_mitigating_control',
};

/** CycloneDX's justification read as CISA's. */
export const JUSTIFICATION_OF_CYCLONEDX: Record<CycloneDxJustification, Justification> = {
  code_not_present: 'vulnerable_code_not_present',
  code_not_reachable: 'vulnerable_code_not_in_execute_path',
  requires_configuration: 'vulnerable_code_cannot_be_controlled_by_adversary',
  requires_dependency: 'component_not_present',
  requires_environment: 'vulnerable_code_cannot_be_controlled_by_adversary',
  protected_by_compiler: 'inline_mitigations_already_exist',
  protected_at_runtime: 'inline_mitigations_already_exist',
  protected_at_perimeter: 'inline_mitigations_already_exist',
  protected_by_mitigating_control: 'inline_mitigations_already_exist',
};

/** The CycloneDX vulnerability property that carries CISA's exact justification. */
export const CISA_JUSTIFICATION_PROPERTY = 'vulnintel:cisa_justification';

/** An action statement as exported: its due date appended as "(due YYYY-MM-DD)". */
export function actionText(action: string, due: string | null): string {
  return action + (due ? ` (due ${due})` : '');
}

/** The CPE pattern of the CSAF 2.0 schema (full_product_name_t.product_identification_helper.cpe). */
const CSAF_CPE =
  /^(cpe:2\.3:[aho*-](:(((\?*|\*?)([a-zA-Z0-9\-._]|(\\[\\*?!"#$%&'()+,/:;<=>@[\]^`{|}~]))+(\?*|\*?))|[*-])){5}(:(([a-zA-Z]{2,3}(-([a-zA-Z]{2}|[0-9]{3}))?)|[*-]))(:(((\?*|\*?)([a-zA-Z0-9\-._]|(\\[\\*?!"#$%&'()+,/:;<=>@[\]^`{|}~]))+(\?*|\*?))|[*-])){4})|([c][pP][eE]:\/[AHOaho]?(:[A-Za-z0-9._\-~%]*){0,6})$/;

/** A stored asset CPE as exported: a CPE 2.3 formatted string CSAF accepts, else none (nothing is repaired). */
export function exportedCpe(cpe: string | null): string | null {
  return cpe !== null && cpe.startsWith('cpe:2.3:') && CSAF_CPE.test(cpe) ? cpe : null;
}
