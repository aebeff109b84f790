import { ENGINE_ONLY_SETTING_IDS, SETTINGS } from '../../../src/modules/settings/setting-catalogue';
import { findSetting, normalizeSettingValue, parseLearningStandard } from '../../../src/modules/settings/setting-values';

const norm = (id: string, value: string) => normalizeSettingValue(findSetting(id)!, value);

describe('settings catalogue', () => {
  it('has the 174 settable ids of the catalogue, once each, none of them server-wide', () => {
    const ids = SETTINGS.map((s) => s.id);
    expect(ids).toHaveLength(174);
    expect(new Set(ids).size).toBe(174);
    expect(ENGINE_ONLY_SETTING_IDS.size).toBe(117);
    expect(ids.filter((id) => ENGINE_ONLY_SETTING_IDS.has(id))).toEqual([]);
    expect(SETTINGS.filter((s) => s.level === 'Tenant')).toHaveLength(14);
    for (const id of ['PlayerLaunchType', 'PlayerScoLaunchType', 'ApiRollupRegistrationPostBackUrl', 'WhenToRestartRegistration', 'LaunchAuthType', 'PlayerLaunchCompletedRegsAsNoCredit']) {
      expect(findSetting(id)).toBeDefined();
    }
    expect(findSetting('PlayerEnablePrevNext')).toBeUndefined();
  });

  it('has defaults that are valid values of their own settings, in canonical form', () => {
    for (const def of SETTINGS) {
      const result = normalizeSettingValue(def, def.default);
      const acceptsEmpty = def.kind === 'string' || def.kind === 'double' || def.kind === 'jsonObject' || def.kind === 'jsonArray';
      if (def.default === '' && !acceptsEmpty) continue;
      expect({ id: def.id, result }).toEqual({ id: def.id, result: { ok: true, value: def.default } });
    }
  });

  it('normalises values per type and names the setting and the valid values when refusing one', () => {
    expect(norm('UseModernPlayer', 'TRUE')).toEqual({ ok: true, value: 'true' });
    expect(norm('UseModernPlayer', 'False')).toEqual({ ok: true, value: 'false' });
    expect(norm('UseModernPlayer', '1')).toEqual({ ok: false, message: "invalid value '1' for setting UseModernPlayer: valid values are true, false" });
    expect(norm('PlayerShowNavBar', 'yes')).toEqual({ ok: true, value: 'YES' });
    expect(norm('PlayerShowNavBar', 'false')).toEqual({ ok: true, value: 'NO' });
    expect(norm('PlayerLaunchType', 'new_window_after_click')).toEqual({ ok: true, value: 'NEW_WINDOW_AFTER_CLICK' });
    expect(norm('PlayerReturnToLmsAction', 'SUSPENDALL')).toEqual({ ok: true, value: 'SuspendAll' });
    const bad = norm('PlayerLaunchType', 'POPUP');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toMatch(/PlayerLaunchType: valid values are FRAMESET, NEW_WINDOW, NEW_WINDOW_AFTER_CLICK/);
    expect(norm('PlayerDesiredWidth', ' 0800 ')).toEqual({ ok: true, value: '800' });
    expect(norm('PlayerDesiredWidth', '1e3').ok).toBe(false);
    expect(norm('PlayerScoreRollupModeNumberOfScoringObjects', '-2147483648')).toEqual({ ok: true, value: '-2147483648' });
    expect(norm('PlayerScoreRollupModeNumberOfScoringObjects', '2147483648').ok).toBe(false);
    expect(norm('ConcurrentLaunchDetectionHistoryRows', '0').ok).toBe(false);
    expect(norm('PlayerStatusRollupModeThresholdScore', '0.8')).toEqual({ ok: true, value: '0.8' });
    expect(norm('PlayerStatusRollupModeThresholdScore', '')).toEqual({ ok: true, value: '' });
    expect(norm('PlayerStatusRollupModeThresholdScore', 'high').ok).toBe(false);
    expect(norm('xAPIValidations', '')).toEqual({ ok: true, value: '' });
    expect(norm('xAPIValidations', 'nounexpectedparameters, SignatureContentType,NoUnexpectedParameters')).toEqual({ ok: true, value: 'NoUnexpectedParameters, SignatureContentType' });
    expect(norm('xAPIRewriteStatementModifier', '{"overlay":{}}')).toEqual({ ok: true, value: '{"overlay":{}}' });
    expect(norm('xAPIRewriteStatementModifier', 'null').ok).toBe(false);
    expect(norm('ContentLangToUrl', '[{"lang":"en"}]').ok).toBe(true);
    expect(norm('ContentLangToUrl', '{}').ok).toBe(false);
    expect(norm('RedirectOnExitUrl', ' https://example.com/x ')).toEqual({ ok: true, value: ' https://example.com/x ' });
    expect(norm('ApiRollupRegistrationAuthType', 'HTTPBASIC')).toEqual({ ok: true, value: 'httpbasic' });
    expect(norm('RedirectOnExitUrl', 'x'.repeat(70_000)).ok).toBe(false);
  });

  it('reads learning standard names in any case', () => {
    expect(parseLearningStandard('scorm12')).toBe('SCORM12');
    expect(parseLearningStandard('SCORM20044THEDITION')).toBe('SCORM20044THEDITION');
    expect(parseLearningStandard('UNKNOWN')).toBeUndefined();
    expect(parseLearningStandard('SCORM13')).toBeUndefined();
  });
});
