// Placeholder: replaced by the module that implements this part.
import {el} from './dom.js';

export function mountSandboxesTab(panel, app) {
  panel.append(el('p', {}, 'sandboxes_tab is not built yet.'));
}
